package dev.pushgate.appliance.web;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.Question;
import dev.pushgate.appliance.control.QuestionJson;
import dev.pushgate.gateway.Diffstat;
import java.util.Locale;
import java.util.Map;

/**
 * What the page is sent. Every text an agent chose (ref, command, commit subjects, reasons) goes
 * through {@link UntrustedText#visible} as it does for a terminal; the page then shows it as text,
 * never as markup.
 */
final class WebJson {
  private WebJson() {}

  static ObjectNode question(ObjectMapper json, Question q) {
    return QuestionJson.of(json, q, UntrustedText::visible);
  }

  static ObjectNode ended(ObjectMapper json, Question q, Answer a) {
    ObjectNode n = json.createObjectNode();
    n.put("id", q.id());
    n.put("outcome", a.outcome().id());
    n.put("by", UntrustedText.visible(a.by()));
    n.put("reason", UntrustedText.visible(a.reason()));
    return n;
  }

  static ObjectNode diffstat(ObjectMapper json, String id, Diffstat d) {
    ObjectNode n = json.createObjectNode();
    n.put("id", id);
    if (d.unavailable() != null) {
      n.put("unavailable", d.unavailable());
      return n;
    }
    n.put("base", d.base());
    n.put("added", d.added());
    n.put("removed", d.removed());
    n.put("unlisted", d.unlisted());
    n.put("maxLines", Diffstat.MAX_LINES);
    var files = n.putArray("files");
    int i = 0;
    for (Diffstat.File f : d.files()) {
      ObjectNode o = files.addObject();
      o.put("path", UntrustedText.visible(f.path()));
      o.put("oldPath", UntrustedText.visible(f.oldPath()));
      o.put("change", f.change());
      o.put("added", f.added());
      o.put("removed", f.removed());
      o.put("binary", f.binary());
      Diffstat.FileDiff diff = d.diffs().get(i++);
      o.put("hiddenLines", diff.hiddenLines());
      var lines = o.putArray("lines");
      for (Diffstat.Line l : diff.lines()) {
        ObjectNode line = lines.addObject();
        line.put("kind", l.kind().name().toLowerCase(Locale.ROOT));
        line.put("old", l.oldLine());
        line.put("new", l.newLine());
        // A file's own indentation is kept; every other invisible character is escaped.
        line.put("text", UntrustedText.visibleLine(l.text()));
        line.put("finding", UntrustedText.visible(l.finding()));
      }
    }
    var authors = n.putArray("authors");
    d.authors().forEach(a -> authors.add(UntrustedText.visible(a)));
    var findings = n.putArray("findings");
    for (Diffstat.Finding f : d.findings()) {
      findings.addObject().put("path", UntrustedText.visible(f.path())).put("line", f.line())
          .put("text", UntrustedText.visible(f.text())).put("decision", f.decision());
    }
    return n;
  }

  /** Who asks, label by label, as text to show. */
  static ObjectNode asker(ObjectMapper json, Map<String, String> labels) {
    ObjectNode n = json.createObjectNode();
    labels.forEach((k, v) -> n.put(k, UntrustedText.visible(v)));
    return n;
  }
}
