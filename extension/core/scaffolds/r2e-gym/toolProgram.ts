/**
 * Our own in-container program for R2E-Gym's four tools (`file_editor`, `execute_bash`,
 * `search`, `finish`), written to print what R2E-Gym's tools print at commit 69bc953, byte for
 * byte (test/conformance/r2eGym.test.ts runs both on the same calls). It runs with the image's
 * `/root/.venv/bin/python`, as R2E-Gym's own scripts do, because what they print comes from that
 * interpreter: `str.splitlines`, `ast` for the condensed view, `SyntaxError` texts and argparse's
 * usage errors. One file, installed under each tool's name; it picks the tool by its own name.
 */
export const R2E_TOOL_NAMES = ['file_editor', 'execute_bash', 'search', 'finish'] as const;

/** Where R2E-Gym copies its tools (`RepoEnv.add_commands`); the program reads argv[0]'s basename. */
export const R2E_TOOL_DIR = '/usr/local/bin';

/** The program itself, which each tool's name links to. */
export const R2E_PROGRAM_PATH = `${R2E_TOOL_DIR}/swe-workbench-r2e-tools`;

/** The interpreter of the program's `#!` line. */
export const R2E_PYTHON = '/root/.venv/bin/python';

export const R2E_TOOL_PROGRAM =
  `#!${R2E_PYTHON}\n` +
  String.raw`# swe-workbench: R2E-Gym's tools, reimplemented. The tool is chosen by the name this file runs under.
import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

if hasattr(sys.stdout, "buffer"):
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")

HISTORY_FILE = "/var/tmp/editor_state.json"
CONTEXT_LINES = 4
OUTPUT_LIMIT = 10000
CLIPPED = ("<response clipped><NOTE>To save on context only part of this file has been shown to you. "
           "You should retry this tool after you have searched inside the file with ` +
  '`grep -n`' +
  String.raw` in order to find "
           "the line numbers of what you are looking for.</NOTE>")
SYNTAX_ERRORS = "Your proposed edit has introduced new syntax error(s).\nPlease read this error message carefully and then retry editing the file.\nERRORS:\n"


def emit(text):
    try:
        print(text)
    except UnicodeEncodeError:
        print(text.encode("utf-8", errors="replace").decode("utf-8", errors="replace"))


def clip(text):
    return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + CLIPPED


class Refused(Exception):
    pass


def decode_file(path):
    raw = path.read_bytes()
    try:
        import chardet
        guess = chardet.detect(raw)["encoding"]
    except ImportError:
        guess = None
    return path.read_text(encoding=guess or "utf-8")


def numbered(text, title, first=1):
    body = clip(text).expandtabs().split("\n")
    rows = "\n".join("%6d\t%s" % (first + n, row) for n, row in enumerate(body))
    return "Here's the result of running ` +
  '`cat -n`' +
  String.raw` on " + title + ":\n" + rows + "\n"


def syntax_problem(text, where):
    import ast
    try:
        ast.parse(text, filename=where)
    except SyntaxError as err:
        return str(err)
    return ""


def skeleton(path):
    """(0-based line, text) pairs with long function bodies and class docstrings folded."""
    import ast
    text = decode_file(path)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as err:
        raise Refused("Syntax error for file %s: %s" % (path, err))

    def deepest(node):
        best = getattr(node, "lineno", 0)
        for child in ast.iter_child_nodes(node):
            best = max(best, deepest(child))
        return best

    folds = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            tail = node.body[-1]
            start = node.body[0].lineno - 1
            if getattr(tail, "end_lineno", None):
                end = tail.end_lineno - 1
            else:
                doc = ast.get_docstring(node)
                if doc:
                    start -= doc.count("\n") + 1
                end = deepest(tail) - 1
            if end - start >= 3:
                folds.append((start, end))
        if isinstance(node, ast.ClassDef) and node.body:
            head = node.body[0]
            value = getattr(head, "value", None)
            is_doc = isinstance(head, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str)
            if not is_doc and isinstance(head, ast.Expr) and hasattr(ast, "Str"):
                is_doc = isinstance(value, ast.Str)
            if is_doc:
                if getattr(head, "end_lineno", None):
                    first, last = head.lineno - 1, head.end_lineno - 1
                else:
                    first, last = node.lineno, deepest(head) - 1
                if last - first >= 4:
                    folds.append((first + 1, last - 1))
    hidden = set()
    for start, end in folds:
        hidden.update(range(start, end + 1))
    rows = [(start, "... eliding lines %d-%d ..." % (start + 1, end + 1)) for start, end in folds]
    rows += [(n, row) for n, row in enumerate(text.splitlines()) if n not in hidden]
    rows.sort(key=lambda pair: pair[0])
    return rows


class Editor:
    def __init__(self, history, lint):
        self.history = history
        self.lint = lint

    def remember(self, path, text):
        self.history.setdefault(str(path), []).append(text)

    def run(self, command, path_text, args):
        path = Path(path_text)
        if command == "create":
            if path.exists():
                raise Refused("File already exists at: %s. Cannot overwrite with 'create'." % path)
        elif not path.exists():
            raise Refused("The path '%s' does not exist." % path)
        if path.is_dir() and command != "view":
            raise Refused("The path '%s' is a directory. Only 'view' can be used on directories." % path)
        handler = {"view": self.view, "create": self.create, "str_replace": self.str_replace,
                   "insert": self.insert, "undo_edit": self.undo}.get(command)
        if handler is None:
            raise Refused("Unrecognized command '%s'. Allowed commands: view, create, str_replace, insert, undo_edit." % command)
        return handler(path, args)

    def view(self, path, args):
        if path.is_dir():
            argv = ["find", str(path), "-maxdepth", "2", "-not", "-path", "*/.*", "(", "-type", "d", "-o", "-name", "*.py", ")"]
            try:
                done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
                if done.stderr.strip():
                    return "", done.stderr.strip()
                return clip("Here's the files and directories up to 2 levels deep in %s, excluding hidden:\n" % path + done.stdout), ""
            except Exception as err:
                return "", "Ran into %s while trying to list directory contents of %s." % (err, path)
        if path.suffix != ".py":
            return "", "ERROR: Viewing non-Python files is disallowed for saving context. File '%s' is not a .py file." % path.name
        window = args.view_range
        concise = args.concise
        if not window and not concise and len(decode_file(path).splitlines()) > 110:
            concise = True
        rows = skeleton(path) if concise else list(enumerate(decode_file(path).splitlines()))
        if window and len(window) == 2:
            low, high = window
            count = len(rows)
            if not 1 <= low <= count:
                return "", "Invalid view_range %s: start line must be in [1, %d]" % (window, count)
            if high != -1 and (high < low or high > count):
                return "", "Invalid view_range %s: end must be >= start and <= %d, or -1 to view until end." % (window, count)
            rows = [(n, row) for n, row in rows if n + 1 >= low and (high == -1 or n + 1 <= high)]
        if concise:
            head = ("Here is a condensed view for file: %s; [Note: Useful for understanding file structure in a concise manner. "
                    "Please use specific view_range without concise cmd if you want to explore further into the relevant parts.]\n" % path)
        else:
            head = "Here's the result of running ` +
  '`cat -n`' +
  String.raw` on the file: %s:\n" % path
        return clip(head + "\n".join("%6d %s" % (n + 1, row) for n, row in rows)), ""

    def create(self, path, args):
        text = args.file_text
        if text is None:
            raise Refused("Cannot create file without 'file_text' parameter.")
        refusal = self.lint_refusal(path, text)
        if refusal:
            return "", refusal
        try:
            path.write_text(text, encoding="utf-8")
            self.remember(path, "")
        except Exception as err:
            raise Refused("Error creating file at %s: %s" % (path, err))
        return ("File created at %s. " % path + numbered(text, str(path))
                + "Review the file and make sure that it is as expected. Edit the file if necessary."), ""

    def load(self, path):
        try:
            return decode_file(path)
        except Exception as err:
            raise Refused("Failed to read file %s: %s" % (path, err))

    def store(self, path, text):
        try:
            path.write_text(text, encoding="utf-8")
        except Exception as err:
            raise Refused("Failed to write file %s: %s" % (path, err))

    def lint_refusal(self, path, text):
        problem = syntax_problem(text, str(path)) if self.lint and path.suffix == ".py" else ""
        return SYNTAX_ERRORS + problem if problem else ""

    def apply(self, path, before, after):
        """Writes an edit and remembers the text before it, unless the linter refuses it (its message is returned)."""
        refusal = self.lint_refusal(path, after)
        if not refusal:
            self.remember(path, before)
            self.store(path, after)
        return refusal

    def str_replace(self, path, args):
        old, new = args.old_str, args.new_str
        if old is None:
            raise Refused("Missing required parameter 'old_str' for 'str_replace'.")
        before = self.load(path)
        found = before.count(old)
        if found == 0:
            raise Refused("No occurrences of '%s' found in %s for replacement." % (old, path))
        if found > 1:
            raise Refused("Multiple occurrences of '%s' found in %s. Please ensure it is unique before using str_replace." % (old, path))
        after = before.replace(old, new if new else "")
        refusal = self.apply(path, before, after)
        if refusal:
            return "", refusal
        at = before.split(old)[0].count("\n")
        first = max(0, at - CONTEXT_LINES)
        last = at + CONTEXT_LINES + (new or "").count("\n")
        shown = "\n".join(after.split("\n")[first:last + 1])
        return ("The file %s has been edited. " % path + numbered(shown, "a snippet of %s" % path, first + 1)
                + "Review the changes and make sure they are as expected. Edit the file again if necessary."), ""

    def insert(self, path, args):
        new, at = args.new_str, args.insert_line
        if new is None:
            raise Refused("Missing required parameter 'new_str' for 'insert'.")
        before = self.load(path)
        rows = before.split("\n")
        if at < 0 or at > len(rows):
            raise Refused("Invalid insert_line %d. Must be in [0, %d]." % (at, len(rows)))
        added = new.split("\n")
        after = "\n".join(rows[:at] + added + rows[at:])
        refusal = self.apply(path, before, after)
        if refusal:
            return "", refusal
        shown = "\n".join(rows[max(0, at - CONTEXT_LINES):at] + added + rows[at:at + CONTEXT_LINES])
        return ("The file %s has been edited. " % path + numbered(shown, "a snippet of the edited file", max(1, at - CONTEXT_LINES + 1))
                + "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary."), ""

    def undo(self, path, args):
        kept = self.history.setdefault(str(path), [])
        if not kept:
            raise Refused("No previous edits found for %s to undo." % path)
        text = kept.pop()
        self.store(path, text)
        return "Last edit to %s undone successfully. " % path + numbered(text, str(path)), ""


def line_pair(text):
    parts = text.strip().strip("[]()").replace(",", " ").split()
    if len(parts) != 2:
        raise argparse.ArgumentTypeError("Expected two numbers, got: %s" % text.strip().strip("[]()"))
    try:
        return [int(parts[0]), int(parts[1])]
    except ValueError:
        raise argparse.ArgumentTypeError("Could not convert %s to integers." % parts)


def file_editor():
    parser = argparse.ArgumentParser(description="A disk-backed file editing tool (view, create, str_replace, insert, undo_edit) with optional linting. Also supports a 'concise' view for Python files.")
    parser.add_argument("command", type=str)
    parser.add_argument("--path", type=str)
    parser.add_argument("--file_text", type=str, default=None)
    parser.add_argument("--view_range", type=line_pair, default=None)
    parser.add_argument("--old_str", type=str, default=None)
    parser.add_argument("--new_str", type=str, default=None)
    parser.add_argument("--insert_line", type=int, default=None)
    parser.add_argument("--enable_linting", type=bool, default=False)
    parser.add_argument("--concise", type=str, default="False")
    parser.add_argument("--python_only", type=bool, default=True)
    args = parser.parse_args()
    try:
        with open(HISTORY_FILE, "r", encoding="utf-8") as handle:
            history = dict(json.load(handle))
    except FileNotFoundError:
        history = {}
    except Exception as err:
        emit("Warning: Could not load editor history from %s: %s" % (HISTORY_FILE, err))
        history = {}
    args.concise = args.concise.lower() == "true"
    editor = Editor(history, args.enable_linting)
    try:
        output, problem = editor.run(args.command, args.path, args)
        emit(output)
        if problem:
            emit("ERROR: " + problem)
    except Refused as err:
        emit("ERROR: %s" % err)
    except Exception as err:
        emit("ERROR: Unhandled exception: %s" % err)
        import traceback
        traceback.print_exc()
    try:
        with open(HISTORY_FILE, "w", encoding="utf-8") as handle:
            json.dump(editor.history, handle)
    except Exception as err:
        emit("Warning: Could not write editor history to %s: %s" % (HISTORY_FILE, err))


REFUSED_COMMANDS = ("cd", "ipython", "jupyter", "pip", "nohup")


def execute_bash():
    parser = argparse.ArgumentParser(description="Execute a bash command.")
    parser.add_argument("--cmd", required=True)
    args = parser.parse_args()
    word = args.cmd.strip().split()[0]
    if word in REFUSED_COMMANDS:
        print("Bash command '%s' is not allowed. Please use a different command or tool." % word)
        sys.exit(1)
    done = subprocess.run(args.cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        print("Error executing command:\n")
    print("[STDOUT]\n")
    print(done.stdout.strip(), "\n")
    print("[STDERR]\n")
    print(done.stderr.strip())
    if done.returncode != 0:
        sys.exit(done.returncode)


def search_tree(term, folder, py_only):
    folder = os.path.realpath(folder)
    if not os.path.isdir(folder):
        print("Directory '%s' not found or not a directory." % folder)
        sys.exit(1)
    counts = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith(".") or (py_only and not name.endswith(".py")):
                continue
            where = os.path.join(root, name)
            try:
                with open(where, "r", errors="ignore") as handle:
                    hits = sum(1 for row in handle if term in row)
            except (UnicodeDecodeError, PermissionError):
                continue
            if hits:
                counts[where] = hits
    if not counts:
        print('No matches found for "%s" in %s' % (term, folder))
        sys.exit(0)
    if len(counts) > 100:
        print('More than %d files matched for "%s" in %s. Please narrow your search.' % (len(counts), term, folder))
        sys.exit(0)
    print('Found %d matches for "%s" in %s:' % (sum(counts.values()), term, folder))
    for where, hits in counts.items():
        shown = os.path.relpath(where, start=os.getcwd())
        if not shown.startswith("./"):
            shown = "./" + shown
        print("%s (%d matches)" % (shown, hits))
    print('End of matches for "%s" in %s' % (term, folder))


def search_file(term, where):
    where = os.path.realpath(where)
    if not os.path.isfile(where):
        print("File '%s' not found or is not a file." % where)
        sys.exit(1)
    done = subprocess.run(["grep", "-n", term, where], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode == 1:
        print('No matches found for "%s" in %s' % (term, where))
        sys.exit(0)
    if done.returncode != 0:
        print("Error executing grep:\n%s" % done.stderr)
        sys.exit(done.returncode)
    print('Matches for "%s" in %s:' % (term, where))
    print(done.stdout.strip())


def search():
    parser = argparse.ArgumentParser(description="search tool: run subcommands such as ` +
  '`search`' +
  String.raw` for files or directories.")
    parser.add_argument("--search_term", required=True)
    parser.add_argument("--path", default=".")
    parser.add_argument("--python_only", default=True)
    args = parser.parse_args()
    if os.path.isfile(args.path):
        search_file(args.search_term, args.path)
    else:
        search_tree(args.search_term, args.path, args.python_only)


def finish():
    parser = argparse.ArgumentParser(description="submit tool: run the ` +
  '`submit`' +
  String.raw` command with an optional ` +
  '`--result`' +
  String.raw` argument.")
    parser.add_argument("command")
    parser.add_argument("--result", default="")
    args = parser.parse_args()
    if args.command != "submit":
        print("Unknown command '%s'. Only ` +
  '`submit`' +
  String.raw` is supported." % args.command)
        sys.exit(1)
    print("<<<Finished>>>")


if __name__ == "__main__":
    {"file_editor": file_editor, "execute_bash": execute_bash, "search": search, "finish": finish}[os.path.basename(sys.argv[0])]()
`;
