package dev.pushgate.appliance.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.approvals.Answer;
import dev.pushgate.appliance.approvals.Question;
import dev.pushgate.appliance.control.QuestionJson;
import dev.pushgate.gateway.Diffstat;

/**
 * What the page is sent. Every text an agent chose (ref, command, commit subjects, reasons) goes
 * through {@link Question#printable} as it does for a terminal; the page then shows it as text,
 * never as markup.
 */
final class WebJson {
  private WebJson() {}

  static ObjectNode question(ObjectMapper json, Question q) {
    return QuestionJson.of(json, q, Question::printable);
  }

  static ObjectNode ended(ObjectMapper json, Question q, Answer a) {
    ObjectNode n = json.createObjectNode();
    n.put("id", q.id());
    n.put("outcome", a.outcome().id());
    n.put("by", Question.printable(a.by()));
    n.put("reason", Question.printable(a.reason()));
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
    var files = n.putArray("files");
    for (Diffstat.File f : d.files()) {
      ObjectNode o = files.addObject();
      o.put("path", Question.printable(f.path()));
      o.put("oldPath", Question.printable(f.oldPath()));
      o.put("change", f.change());
      o.put("added", f.added());
      o.put("removed", f.removed());
      o.put("binary", f.binary());
    }
    return n;
  }
}
