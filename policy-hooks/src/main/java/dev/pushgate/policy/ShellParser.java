package dev.pushgate.policy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a POSIX/bash command line into the flat list of every simple command it would run:
 * pipelines, {@code && || ; &} lists, newlines, sub-shells, groups, {@code if/while/until/for/
 * case}, function bodies, {@code $( )}, backticks, process substitutions and here-document bodies.
 * Quoting and escapes are resolved the way the shell resolves them. What the shell would refuse
 * (an unclosed quote, a stray {@code fi}) is a {@link ShellSyntaxException}.
 *
 * <p>It is a reader for judging, not an interpreter: nothing is expanded except {@code $HOME}; a
 * value computed at run time becomes a marker character, so a classifier can tell it cannot see
 * it.
 */
final class ShellParser {
  /** Stands for a part of a word only known at run time. */
  static final char DYNAMIC = '\u0000';
  /** Stands for a part only known at run time that the shell guarantees is not empty. */
  static final char DYNAMIC_NONEMPTY = '\u0001';

  static final int MAX_LENGTH = 1 << 20;
  static final int MAX_DEPTH = 48;

  private static final Pattern ASSIGNMENT =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]*\\])?\\+?=.*", Pattern.DOTALL);
  private static final Pattern ASSIGNMENT_PREFIX =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]*\\])?\\+?=");
  private static final Set<String> RESERVED =
      Set.of("then", "elif", "else", "fi", "do", "done", "esac", "}");
  private static final Set<String> REDIRECTS =
      Set.of("<", ">", ">>", ">|", "<>", "<<", "<<-", "<<<", "<&", ">&", "&>", "&>>");

  private static final int WORD = 0;
  private static final int OP = 1;
  private static final int NEWLINE = 2;
  private static final int EOF = 3;

  private static final int STOP_NONE = 0;
  private static final int STOP_PAREN = 1;
  private static final int STOP_CASE = 2;

  private record Token(int type, String text, String raw, boolean plain, int start) {
    boolean isOp(String op) {
      return type == OP && text.equals(op);
    }

    boolean isWord(String word) {
      return type == WORD && plain && text.equals(word);
    }
  }

  private record Heredoc(Redirect redirect, String delimiter, boolean stripTabs, boolean quoted) {}

  private final String src;
  private final int end;
  private final List<SimpleCommand> out;
  private final Deque<String> functions;
  private final List<Heredoc> pending = new ArrayList<>();
  private int pos;
  private int depth;
  private Token peeked;

  private ShellParser(String src, int depth, List<SimpleCommand> out, Deque<String> functions) {
    this.src = src;
    this.end = src.length();
    this.depth = depth;
    this.out = out;
    this.functions = functions;
  }

  /** Parses a whole command line as a person or agent wrote it. */
  static List<SimpleCommand> parse(String commandLine) throws ShellSyntaxException {
    for (int i = 0; i < commandLine.length(); i++) {
      char c = commandLine.charAt(i);
      if (c == DYNAMIC || c == DYNAMIC_NONEMPTY) {
        throw new ShellSyntaxException("a NUL or control character the shell cannot pass", i);
      }
    }
    return parse(commandLine, 0);
  }

  /**
   * Parses a command line found inside another ({@code bash -c}, {@code eval}) at some depth. Its
   * text may hold run-time markers, which read as ordinary word characters.
   */
  static List<SimpleCommand> parse(String commandLine, int depth) throws ShellSyntaxException {
    if (commandLine.length() > MAX_LENGTH) {
      throw new ShellSyntaxException("longer than " + MAX_LENGTH + " characters", MAX_LENGTH);
    }
    List<SimpleCommand> out = new ArrayList<>();
    new ShellParser(commandLine, depth, out, new ArrayDeque<>()).parseAll();
    return out;
  }

  private void parseAll() throws ShellSyntaxException {
    enter(0);
    parseList(STOP_NONE, Set.of());
    Token t = peek();
    if (t.type != EOF) {
      throw unexpected(t);
    }
  }

  // ---- grammar

  private void parseList(int stop, Set<String> stopWords) throws ShellSyntaxException {
    while (true) {
      skipNewlines();
      Token t = peek();
      if (t.type == EOF || isStop(t, stop, stopWords)) {
        return;
      }
      int from = out.size();
      parseAndOr();
      t = peek();
      if (t.isOp(";") || t.isOp("&") || t.type == NEWLINE) {
        next();
        if (t.isOp("&")) {
          markConcurrent(from);
        }
        continue;
      }
      return;
    }
  }

  private static boolean isStop(Token t, int stop, Set<String> stopWords) {
    if (stop == STOP_PAREN && t.isOp(")")) {
      return true;
    }
    if (stop == STOP_CASE && (t.isOp(";;") || t.isOp(";&") || t.isOp(";;&"))) {
      return true;
    }
    return t.type == WORD && t.plain && stopWords.contains(t.text);
  }

  private void parseAndOr() throws ShellSyntaxException {
    parsePipeline();
    while (peek().isOp("&&") || peek().isOp("||")) {
      next();
      skipNewlines();
      parsePipeline();
    }
  }

  private void parsePipeline() throws ShellSyntaxException {
    if (peek().isWord("!")) {
      next();
    }
    if (peek().isWord("time")) {
      next();
      if (peek().isWord("-p")) {
        next();
      }
    }
    int from = out.size();
    parseCommand();
    boolean piped = false;
    while (peek().isOp("|") || peek().isOp("|&")) {
      next();
      skipNewlines();
      parseCommand();
      piped = true;
    }
    if (piped) {
      markConcurrent(from);
    }
  }

  private void parseCommand() throws ShellSyntaxException {
    Token t = peek();
    if (t.isOp("(")) {
      if (t.start + 1 < end && src.charAt(t.start + 1) == '(') {
        peeked = null;
        pos = t.start + 2;
        skipArithmetic(t.start);
      } else {
        next();
        enter(t.start);
        parseList(STOP_PAREN, Set.of());
        expectOp(")", t);
        depth--;
      }
      parseTrailingRedirects();
      return;
    }
    if (t.type == WORD && t.plain) {
      switch (t.text) {
        case "{" -> {
          next();
          enter(t.start);
          parseList(STOP_NONE, Set.of("}"));
          expectWord("}", t);
          depth--;
          parseTrailingRedirects();
          return;
        }
        case "if" -> {
          parseIf();
          return;
        }
        case "while", "until" -> {
          next();
          enter(t.start);
          parseList(STOP_NONE, Set.of("do"));
          expectWord("do", t);
          parseList(STOP_NONE, Set.of("done"));
          expectWord("done", t);
          depth--;
          parseTrailingRedirects();
          return;
        }
        case "for", "select" -> {
          parseFor();
          return;
        }
        case "case" -> {
          parseCase();
          return;
        }
        case "function" -> {
          next();
          Token name = next();
          if (name.type != WORD) {
            throw unexpected(name);
          }
          if (peek().isOp("(")) {
            next();
            expectOp(")", name);
          }
          parseFunctionBody(name);
          return;
        }
        case "[[" -> {
          next();
          while (true) {
            Token w = next();
            if (w.type == EOF) {
              throw new ShellSyntaxException("unclosed [[", t.start);
            }
            if (w.isWord("]]")) {
              break;
            }
          }
          parseTrailingRedirects();
          return;
        }
        default -> {
          if (RESERVED.contains(t.text)) {
            throw unexpected(t);
          }
        }
      }
    }
    if (t.type == WORD || (t.type == OP && isRedirect(t.text))) {
      parseSimple();
      return;
    }
    throw unexpected(t);
  }

  private void parseIf() throws ShellSyntaxException {
    Token t = next();
    enter(t.start);
    parseList(STOP_NONE, Set.of("then"));
    expectWord("then", t);
    parseList(STOP_NONE, Set.of("elif", "else", "fi"));
    while (peek().isWord("elif")) {
      next();
      parseList(STOP_NONE, Set.of("then"));
      expectWord("then", t);
      parseList(STOP_NONE, Set.of("elif", "else", "fi"));
    }
    if (peek().isWord("else")) {
      next();
      parseList(STOP_NONE, Set.of("fi"));
    }
    expectWord("fi", t);
    depth--;
    parseTrailingRedirects();
  }

  private void parseFor() throws ShellSyntaxException {
    Token t = next();
    enter(t.start);
    Token n = peek();
    if (n.isOp("(") && n.start + 1 < end && src.charAt(n.start + 1) == '(') {
      peeked = null;
      pos = n.start + 2;
      skipArithmetic(n.start);
    } else {
      Token name = next();
      if (name.type != WORD) {
        throw unexpected(name);
      }
      skipNewlines();
      if (peek().isWord("in")) {
        next();
        while (peek().type == WORD) {
          next();
        }
      }
    }
    if (peek().isOp(";") || peek().type == NEWLINE) {
      next();
    }
    skipNewlines();
    if (peek().isWord("{")) {
      parseCommand();
    } else {
      expectWord("do", t);
      parseList(STOP_NONE, Set.of("done"));
      expectWord("done", t);
    }
    depth--;
    parseTrailingRedirects();
  }

  private void parseCase() throws ShellSyntaxException {
    Token t = next();
    enter(t.start);
    Token subject = next();
    if (subject.type != WORD) {
      throw unexpected(subject);
    }
    skipNewlines();
    expectWord("in", t);
    while (true) {
      skipNewlines();
      Token p = peek();
      if (p.isWord("esac")) {
        next();
        break;
      }
      if (p.type == EOF) {
        throw new ShellSyntaxException("unclosed case (no esac)", t.start);
      }
      if (p.isOp("(")) {
        next();
      }
      Token pattern = next();
      if (pattern.type != WORD) {
        throw unexpected(pattern);
      }
      while (peek().isOp("|")) {
        next();
        Token alt = next();
        if (alt.type != WORD) {
          throw unexpected(alt);
        }
      }
      expectOp(")", pattern);
      parseList(STOP_CASE, Set.of("esac"));
      Token after = peek();
      if (after.isOp(";;") || after.isOp(";&") || after.isOp(";;&")) {
        next();
      } else if (!after.isWord("esac")) {
        throw unexpected(after);
      }
    }
    depth--;
    parseTrailingRedirects();
  }

  private void parseFunctionBody(Token name) throws ShellSyntaxException {
    skipNewlines();
    Token body = peek();
    boolean compound = body.isOp("(") || body.isWord("{") || body.isWord("if")
        || body.isWord("while") || body.isWord("until") || body.isWord("for")
        || body.isWord("case") || body.isWord("[[") || body.isWord("select");
    if (!compound) {
      throw new ShellSyntaxException("a function body must be a compound command", body.start);
    }
    functions.push(name.text);
    try {
      parseCommand();
    } finally {
      functions.pop();
    }
  }

  private void parseSimple() throws ShellSyntaxException {
    Token first = peek();
    List<String> words = new ArrayList<>();
    List<String> assignments = new ArrayList<>();
    List<Redirect> redirects = new ArrayList<>();
    while (true) {
      Token t = peek();
      if (t.type == WORD) {
        next();
        if (words.isEmpty() && ASSIGNMENT.matcher(t.raw).matches()) {
          assignments.add(t.text);
          continue;
        }
        words.add(t.text);
        if (words.size() == 1 && assignments.isEmpty() && redirects.isEmpty()
            && peek().isOp("(")) {
          Token open = next();
          expectOp(")", open);
          parseFunctionBody(t);
          return;
        }
        continue;
      }
      if (t.type == OP && isRedirect(t.text)) {
        next();
        redirects.add(redirection(t));
        continue;
      }
      break;
    }
    if (words.isEmpty() && assignments.isEmpty() && redirects.isEmpty()) {
      throw unexpected(first);
    }
    out.add(new SimpleCommand(words, assignments, redirects, functions.peek(), false));
  }

  private void parseTrailingRedirects() throws ShellSyntaxException {
    List<Redirect> redirects = new ArrayList<>();
    while (peek().type == OP && isRedirect(peek().text)) {
      redirects.add(redirection(next()));
    }
    if (!redirects.isEmpty()) {
      out.add(new SimpleCommand(List.of(), List.of(), redirects, functions.peek(), false));
    }
  }

  private Redirect redirection(Token op) throws ShellSyntaxException {
    Token target = next();
    if (target.type != WORD) {
      throw new ShellSyntaxException("redirection " + op.text + " has no target", op.start);
    }
    Redirect r = new Redirect(op.text, target.text);
    if (r.isHeredoc()) {
      boolean quoted = target.raw.indexOf('\'') >= 0 || target.raw.indexOf('"') >= 0
          || target.raw.indexOf('\\') >= 0;
      pending.add(new Heredoc(r, target.text, r.op().equals("<<-"), quoted));
    }
    return r;
  }

  private static boolean isRedirect(String op) {
    int i = 0;
    if (!op.isEmpty() && op.charAt(0) == '{') {
      i = op.indexOf('}') + 1;
    }
    while (i < op.length() && Character.isDigit(op.charAt(i))) {
      i++;
    }
    return REDIRECTS.contains(op.substring(i));
  }

  private void markConcurrent(int from) {
    for (int i = from; i < out.size(); i++) {
      out.set(i, out.get(i).runningConcurrently());
    }
  }

  private void skipNewlines() throws ShellSyntaxException {
    while (peek().type == NEWLINE) {
      next();
    }
  }

  private void expectOp(String op, Token opener) throws ShellSyntaxException {
    Token t = next();
    if (!t.isOp(op)) {
      throw t.type == EOF
          ? new ShellSyntaxException("unclosed " + opener.text + " (expected '" + op + "')", opener.start)
          : unexpected(t);
    }
  }

  private void expectWord(String word, Token opener) throws ShellSyntaxException {
    Token t = next();
    if (!t.isWord(word)) {
      throw t.type == EOF
          ? new ShellSyntaxException("unclosed " + opener.text + " (expected '" + word + "')", opener.start)
          : unexpected(t);
    }
  }

  private ShellSyntaxException unexpected(Token t) {
    if (t.type == EOF) {
      return new ShellSyntaxException("unexpected end of input", t.start);
    }
    if (t.type == NEWLINE) {
      return new ShellSyntaxException("unexpected end of line", t.start);
    }
    String text = t.text.length() > 40 ? t.text.substring(0, 40) + "…" : t.text;
    return new ShellSyntaxException("unexpected '" + CommandClassifier.display(text) + "'", t.start);
  }

  private void enter(int at) throws ShellSyntaxException {
    if (++depth > MAX_DEPTH) {
      throw new ShellSyntaxException("nested too deeply", at);
    }
  }

  // ---- lexer

  private Token peek() throws ShellSyntaxException {
    if (peeked == null) {
      peeked = lex();
    }
    return peeked;
  }

  private Token next() throws ShellSyntaxException {
    Token t = peek();
    peeked = null;
    return t;
  }

  private Token lex() throws ShellSyntaxException {
    while (true) {
      while (pos < end) {
        char c = src.charAt(pos);
        if (c == ' ' || c == '\t' || c == '\r') {
          pos++;
        } else if (c == '\\' && pos + 1 < end && src.charAt(pos + 1) == '\n') {
          pos += 2;
        } else {
          break;
        }
      }
      if (pos >= end) {
        return new Token(EOF, "", "", false, end);
      }
      if (src.charAt(pos) == '#') {
        while (pos < end && src.charAt(pos) != '\n') {
          pos++;
        }
        continue;
      }
      break;
    }
    int start = pos;
    char c = src.charAt(pos);
    switch (c) {
      case '\n' -> {
        pos++;
        readHeredocBodies();
        return new Token(NEWLINE, "\n", "\n", false, start);
      }
      case '|' -> {
        return op(start, at(1) == '|' ? "||" : at(1) == '&' ? "|&" : "|");
      }
      case '&' -> {
        if (at(1) == '&') {
          return op(start, "&&");
        }
        if (at(1) == '>') {
          return op(start, at(2) == '>' ? "&>>" : "&>");
        }
        return op(start, "&");
      }
      case ';' -> {
        if (at(1) == ';') {
          return op(start, at(2) == '&' ? ";;&" : ";;");
        }
        return op(start, at(1) == '&' ? ";&" : ";");
      }
      case '(' -> {
        return op(start, "(");
      }
      case ')' -> {
        return op(start, ")");
      }
      case '<' -> {
        if (at(1) == '(') {
          return word();
        }
        return op(start, redirectOp());
      }
      case '>' -> {
        if (at(1) == '(') {
          return word();
        }
        return op(start, redirectOp());
      }
      default -> {
        return word();
      }
    }
  }

  private char at(int ahead) {
    int i = pos + ahead;
    return i < end ? src.charAt(i) : '\0';
  }

  private Token op(int start, String op) {
    pos = start + op.length();
    return new Token(OP, op, op, false, start);
  }

  /** The redirection operator at {@code pos}, which is a {@code <} or {@code >}. */
  private String redirectOp() {
    char c = src.charAt(pos);
    if (c == '<') {
      if (at(1) == '<') {
        return at(2) == '<' ? "<<<" : at(2) == '-' ? "<<-" : "<<";
      }
      return at(1) == '&' ? "<&" : at(1) == '>' ? "<>" : "<";
    }
    if (at(1) == '>') {
      return ">>";
    }
    return at(1) == '|' ? ">|" : at(1) == '&' ? ">&" : ">";
  }

  private Token word() throws ShellSyntaxException {
    int start = pos;
    StringBuilder text = new StringBuilder();
    boolean plain = true;
    loop:
    while (pos < end) {
      char c = src.charAt(pos);
      switch (c) {
        case ' ', '\t', '\r', '\n', ';', '&', '|', ')' -> {
          break loop;
        }
        case '(' -> {
          if (ASSIGNMENT_PREFIX.matcher(src.substring(start, pos)).matches()) {
            readArray();
            text.append(DYNAMIC);
            plain = false;
            continue;
          }
          break loop;
        }
        case '<', '>' -> {
          if (at(1) == '(') {
            int open = pos;
            pos += 2;
            substitution(open);
            text.append(DYNAMIC);
            plain = false;
            continue;
          }
          break loop;
        }
        case '\\' -> {
          plain = false;
          if (pos + 1 >= end) {
            text.append('\\');
            pos++;
          } else if (src.charAt(pos + 1) == '\n') {
            pos += 2;
          } else {
            text.append(src.charAt(pos + 1));
            pos += 2;
          }
        }
        case '\'' -> {
          plain = false;
          int close = src.indexOf('\'', pos + 1);
          if (close < 0) {
            throw new ShellSyntaxException("unclosed single quote", pos);
          }
          text.append(src, pos + 1, close);
          pos = close + 1;
        }
        case '"' -> {
          plain = false;
          int open = pos++;
          readDoubleQuoted(text, true, open);
        }
        case '$' -> {
          if (dollar(text, false)) {
            plain = false;
          }
        }
        case '`' -> {
          plain = false;
          backtick(text, false);
        }
        default -> {
          text.append(c);
          pos++;
        }
      }
    }
    String raw = src.substring(start, pos);
    if (pos < end && (src.charAt(pos) == '<' || src.charAt(pos) == '>') && at(1) != '('
        && (raw.chars().allMatch(Character::isDigit) || raw.matches("\\{[A-Za-z_][A-Za-z0-9_]*\\}"))) {
      String op = redirectOp();
      pos += op.length();
      return new Token(OP, raw + op, raw + op, false, start);
    }
    return new Token(WORD, text.toString(), raw, plain, start);
  }

  /** Reads the rest of a double-quoted string (or a here-document body when not quoted). */
  private void readDoubleQuoted(StringBuilder text, boolean quoted, int open)
      throws ShellSyntaxException {
    while (true) {
      if (pos >= end) {
        if (quoted) {
          throw new ShellSyntaxException("unclosed double quote", open);
        }
        return;
      }
      char c = src.charAt(pos);
      if (c == '"' && quoted) {
        pos++;
        return;
      }
      if (c == '\\' && pos + 1 < end) {
        char n = src.charAt(pos + 1);
        if (n == '\n') {
          pos += 2;
        } else if (n == '$' || n == '`' || n == '\\' || (n == '"' && quoted)) {
          text.append(n);
          pos += 2;
        } else {
          text.append('\\');
          pos++;
        }
      } else if (c == '$') {
        dollar(text, true);
      } else if (c == '`') {
        backtick(text, quoted);
      } else {
        text.append(c);
        pos++;
      }
    }
  }

  /**
   * Reads what starts with the {@code $} at {@code pos}. Returns false when it is a literal dollar
   * sign.
   */
  private boolean dollar(StringBuilder text, boolean inDoubleQuotes) throws ShellSyntaxException {
    int open = pos;
    char n = at(1);
    if (n == '(') {
      if (at(2) == '(') {
        pos += 3;
        skipArithmetic(open);
      } else {
        pos += 2;
        substitution(open);
      }
      text.append(DYNAMIC);
      return true;
    }
    if (n == '{') {
      pos += 2;
      braceParameter(text, open);
      return true;
    }
    if (n == '\'' && !inDoubleQuotes) {
      pos += 2;
      ansiC(text, open);
      return true;
    }
    if (n == '"' && !inDoubleQuotes) {
      pos += 2;
      readDoubleQuoted(text, true, open);
      return true;
    }
    if (n == '_' || Character.isLetter(n)) {
      int s = pos + 1;
      int e = s;
      while (e < end && (src.charAt(e) == '_' || Character.isLetterOrDigit(src.charAt(e)))) {
        e++;
      }
      text.append(src.startsWith("HOME", s) && e - s == 4 ? '~' : DYNAMIC);
      pos = e;
      return true;
    }
    if (Character.isDigit(n) || "@*#?-$!".indexOf(n) >= 0 && n != '\0') {
      pos += 2;
      text.append(DYNAMIC);
      return true;
    }
    text.append('$');
    pos++;
    return false;
  }

  /** Parses the command list of {@code $( … )}, {@code <( … )} or {@code >( … )}. */
  private void substitution(int open) throws ShellSyntaxException {
    enter(open);
    Token saved = peeked;
    peeked = null;
    parseList(STOP_PAREN, Set.of());
    Token close = next();
    if (!close.isOp(")")) {
      throw close.type == EOF
          ? new ShellSyntaxException("unclosed $( or <( (expected ')')", open)
          : unexpected(close);
    }
    peeked = saved;
    depth--;
  }

  private void backtick(StringBuilder text, boolean inDoubleQuotes) throws ShellSyntaxException {
    int open = pos++;
    StringBuilder inner = new StringBuilder();
    while (true) {
      if (pos >= end) {
        throw new ShellSyntaxException("unclosed backtick", open);
      }
      char c = src.charAt(pos);
      if (c == '`') {
        pos++;
        break;
      }
      if (c == '\\' && pos + 1 < end) {
        char n = src.charAt(pos + 1);
        if (n == '$' || n == '`' || n == '\\' || (n == '"' && inDoubleQuotes)) {
          inner.append(n);
          pos += 2;
          continue;
        }
      }
      inner.append(c);
      pos++;
    }
    nested(inner.toString(), open);
    text.append(DYNAMIC);
  }

  /** Parses text the shell will parse again (backticks, here-document bodies) into the same list. */
  private void nested(String text, int at) throws ShellSyntaxException {
    if (depth + 1 > MAX_DEPTH) {
      throw new ShellSyntaxException("nested too deeply", at);
    }
    ShellParser inner = new ShellParser(text, depth + 1, out, functions);
    try {
      inner.parseList(STOP_NONE, Set.of());
      Token t = inner.peek();
      if (t.type != EOF) {
        throw inner.unexpected(t);
      }
    } catch (ShellSyntaxException e) {
      throw new ShellSyntaxException(e.getMessage() + " inside `…` or a here-document", at);
    }
  }

  private void braceParameter(StringBuilder text, int open) throws ShellSyntaxException {
    int start = pos;
    int level = 1;
    while (true) {
      if (pos >= end) {
        throw new ShellSyntaxException("unclosed ${", open);
      }
      char c = src.charAt(pos);
      if (c == '}') {
        if (--level == 0) {
          break;
        }
        pos++;
      } else if (c == '{') {
        level++;
        pos++;
      } else if (c == '\\') {
        pos += 2;
      } else if (c == '\'') {
        int close = src.indexOf('\'', pos + 1);
        if (close < 0) {
          throw new ShellSyntaxException("unclosed single quote", pos);
        }
        pos = close + 1;
      } else if (c == '"') {
        int q = pos++;
        readDoubleQuoted(new StringBuilder(), true, q);
      } else if (c == '$') {
        if (at(1) == '{') {
          level++;
          pos += 2;
        } else {
          dollar(new StringBuilder(), true);
        }
      } else if (c == '`') {
        backtick(new StringBuilder(), true);
      } else {
        pos++;
      }
    }
    String inner = src.substring(start, pos);
    pos++;
    if (inner.equals("HOME")) {
      text.append('~');
    } else if (inner.matches("[A-Za-z_][A-Za-z0-9_]*:\\?.*")) {
      text.append(DYNAMIC_NONEMPTY);
    } else {
      text.append(DYNAMIC);
    }
  }

  /** Skips {@code (( … ))} or {@code $(( … ))} from just inside the opening parentheses. */
  private void skipArithmetic(int open) throws ShellSyntaxException {
    int level = 0;
    while (true) {
      if (pos >= end) {
        throw new ShellSyntaxException("unclosed ((", open);
      }
      char c = src.charAt(pos);
      if (c == '(') {
        level++;
        pos++;
      } else if (c == ')') {
        if (level == 0) {
          if (at(1) != ')') {
            throw new ShellSyntaxException("unclosed (( (expected '))')", open);
          }
          pos += 2;
          return;
        }
        level--;
        pos++;
      } else if (c == '$') {
        dollar(new StringBuilder(), true);
      } else if (c == '`') {
        backtick(new StringBuilder(), false);
      } else {
        pos++;
      }
    }
  }

  private void readArray() throws ShellSyntaxException {
    int open = pos++;
    while (true) {
      while (pos < end && Character.isWhitespace(src.charAt(pos))) {
        pos++;
      }
      if (pos >= end) {
        throw new ShellSyntaxException("unclosed array (expected ')')", open);
      }
      if (src.charAt(pos) == ')') {
        pos++;
        return;
      }
      int before = pos;
      word();
      if (pos == before) {
        throw new ShellSyntaxException("unexpected '" + src.charAt(pos) + "' in an array", pos);
      }
    }
  }

  private void ansiC(StringBuilder text, int open) throws ShellSyntaxException {
    while (true) {
      if (pos >= end) {
        throw new ShellSyntaxException("unclosed $'", open);
      }
      char c = src.charAt(pos++);
      if (c == '\'') {
        return;
      }
      if (c != '\\' || pos >= end) {
        text.append(c);
        continue;
      }
      char e = src.charAt(pos++);
      switch (e) {
        case 'n' -> text.append('\n');
        case 't' -> text.append('\t');
        case 'r' -> text.append('\r');
        case 'a' -> text.append('\u0007');
        case 'b' -> text.append('\b');
        case 'e', 'E' -> text.append('\u001b');
        case 'f' -> text.append('\f');
        case 'v' -> text.append('\u000b');
        case 'x' -> text.appendCodePoint(number(16, 2, e));
        case 'u' -> text.appendCodePoint(number(16, 4, e));
        case 'U' -> text.appendCodePoint(number(16, 8, e));
        case 'c' -> {
          if (pos < end) {
            text.append((char) (src.charAt(pos++) & 0x1f));
          }
        }
        default -> {
          if (e >= '0' && e <= '7') {
            pos--;
            text.appendCodePoint(number(8, 3, e));
          } else {
            // \\, \', \" and \? stand for themselves; bash keeps the backslash before others.
            if ("\\'\"?".indexOf(e) < 0) {
              text.append('\\');
            }
            text.append(e);
          }
        }
      }
    }
  }

  private int number(int radix, int maxDigits, char escape) {
    int value = 0;
    int digits = 0;
    while (digits < maxDigits && pos < end && Character.digit(src.charAt(pos), radix) >= 0) {
      value = value * radix + Character.digit(src.charAt(pos), radix);
      pos++;
      digits++;
    }
    if (digits == 0) {
      return escape;
    }
    // A NUL ends a bash string; a NUL or our markers must not come out of a literal.
    if (value == 0 || value == DYNAMIC_NONEMPTY || !Character.isValidCodePoint(value)) {
      return '?';
    }
    return value;
  }

  private void readHeredocBodies() throws ShellSyntaxException {
    if (pending.isEmpty()) {
      return;
    }
    List<Heredoc> docs = List.copyOf(pending);
    pending.clear();
    for (Heredoc h : docs) {
      int bodyStart = pos;
      StringBuilder body = new StringBuilder();
      while (pos < end) {
        int nl = src.indexOf('\n', pos);
        int lineEnd = nl < 0 ? end : nl;
        String line = src.substring(pos, lineEnd);
        if (h.stripTabs()) {
          int i = 0;
          while (i < line.length() && line.charAt(i) == '\t') {
            i++;
          }
          line = line.substring(i);
        }
        pos = nl < 0 ? end : nl + 1;
        if (line.equals(h.delimiter())) {
          break;
        }
        body.append(line).append('\n');
      }
      if (h.quoted()) {
        h.redirect().body(body.toString());
      } else {
        ShellParser inner = new ShellParser(body.toString(), depth + 1, out, functions);
        StringBuilder expanded = new StringBuilder();
        try {
          inner.readDoubleQuoted(expanded, false, 0);
        } catch (ShellSyntaxException e) {
          throw new ShellSyntaxException(e.getMessage() + " inside a here-document", bodyStart);
        }
        h.redirect().body(expanded.toString());
      }
    }
  }
}
