"""The house's size limits, checked (issue 40): no source file over 450 lines, no function over 80,
and at most 30 public methods on Simulation.

Usage: python3 tests/check_sizes.py [source dir] [--list N]   (ctest: sizes)
Prints every breach and exits 1 if any; --list N prints the N longest files and functions instead.

Sources: every tracked *.cpp, *.h, *.py and *.sh outside build/ and third-party folders. A function:
- Python: a def (its lines from the def to its last statement, decorators excluded; ast);
- shell: a `name() {` block;
- C++: its body, from its opening brace to its closing one: a brace block at namespace or class
  depth whose opening follows a parameter list `)` (and qualifiers such as const, override,
  noexcept or a trailing return type) or a constructor's member initializers (`: a_{x}, b_(y) {`:
  a braced initializer is part of its statement). A lambda or a nested block is part of the
  function around it. Comments and literals are blanked first; a macro body such as
  PYBIND11_MODULE(...) { ... } counts as a function.
The rules are tested on small sources in tests/scripts/test_check_sizes.py (ctest: sizes_rules).
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80
MAX_SIMULATION_PUBLIC = 30
SKIP = ("build/", "out/", "third_party/")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|return)\s*$")
SIGNATURE_END = re.compile(r"\)\s*(const|override|final|noexcept|mutable|&|&&|\s|->\s*[\w:<>,\s*&]+)*$")
CTOR_INITS = re.compile(r"\)\s*(noexcept\s*)?:[^:][^;]*[)}]\s*$")  # Foo(...) : a_{x}, b_(y)
BRACED_INIT = re.compile(r"[\w>\]]\s*$|[=(,]\s*$|^\s*$|\breturn\s*$")  # a_{x}, = {...}, f({...}), {...}
SCOPE_KEYWORD = re.compile(r"\b(namespace|struct|class|union|enum|extern|else|do|try)\b")


def sources(root):
    listed = subprocess.run(["git", "ls-files", "*.cpp", "*.h", "*.py", "*.sh"], cwd=root, capture_output=True,
                            text=True, check=False).stdout.split()
    if not listed:  # not a git checkout: every file under the root
        listed = [str(p.relative_to(root)) for ext in ("cpp", "h", "py", "sh") for p in root.rglob(f"*.{ext}")]
    return sorted(f for f in listed if not f.startswith(SKIP))


def blank_cpp(text):
    """The text with comments, string and character literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i) and (m := re.match(r'R"([^(\s]*)\(', text[i:])):
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # not a digit separator
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def cpp_functions(text):
    """(name, first line, line count) of each function body of C++ source `text`."""
    code = blank_cpp(text)
    found, stack = [], []  # stack: (kind, start offset, name) per open brace; kind "fn", "init" or "scope"
    cut = -1  # where the statement the next brace belongs to begins, less one
    for m in re.finditer(r"[{};]", code):
        if m.group() == ";":
            cut = m.start()
            continue
        if m.group() == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "fn":
                    first = code.count("\n", 0, start) + 1
                    found.append((name, first, code.count("\n", start, m.start()) + 1))
                if kind != "init":  # a braced initializer is part of its statement
                    cut = m.start()
            continue
        head = code[cut + 1:m.start()]
        inside_function = any(kind == "fn" for kind, _, _ in stack)
        if not inside_function and is_signature(head):
            call = re.search(r"(\w+)\s*=\s*\[", head) or re.search(r"([~\w:]+)\s*\(", head)  # a lambda's name, or the call's
            stack.append(("fn", m.start(), call.group(1) if call else "?"))
        elif BRACED_INIT.search(head) and not SCOPE_KEYWORD.search(head):
            stack.append(("init", m.start(), ""))
        else:
            stack.append(("scope", m.start(), ""))
        if stack[-1][0] != "init":
            cut = m.start()
    return found


def is_signature(head):
    """Whether a brace after `head` opens a function body: it follows a parameter list (and
    qualifiers), or a constructor's member initializers, and no control statement."""
    if "(" not in head or CONTROL.search(head[:head.rfind("(")].rstrip()):
        return False
    return SIGNATURE_END.search(head.rstrip() + " ") is not None or CTOR_INITS.search(head) is not None


def shell_functions(text):
    found, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if m := re.match(r"\s*([\w-]+)\s*\(\)\s*\{", line):
            depth = 0
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0:
                    found.append((m.group(1), i + 1, j - i + 1))
                    break
    return found


def python_functions(text):
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def functions(path, text):
    if path.endswith(".py"):
        return python_functions(text)
    if path.endswith(".sh"):
        return shell_functions(text)
    return cpp_functions(text)


def simulation_public_methods(root):
    """Declarations of member functions in the public part of class Simulation (sim/simulation.h)."""
    code = blank_cpp((root / "sim/simulation.h").read_text())
    body = code[code.index("class Simulation "):]
    public = body[body.index("public:") + len("public:"):body.index("private:")]
    depth, count, statement = 0, 0, ""
    for c in public:  # top-level statements of the public part: a declaration with a parameter list
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                count += "(" in statement and not statement.strip().startswith(("struct", "class", "enum", "using"))
                statement = ""
        elif depth == 0 and c == ";":
            count += "(" in statement and not statement.strip().startswith(("struct", "class", "enum", "using", "friend"))
            statement = ""
        elif depth == 0:
            statement += c
    return count


def main():
    args = sys.argv[1:]
    listing = None
    if "--list" in args:
        i = args.index("--list")
        listing = int(args[i + 1])
        del args[i:i + 2]
    root = Path(args[0] if args else Path(__file__).resolve().parents[1])
    files, funcs = [], []
    for f in sources(root):
        text = (root / f).read_text(errors="replace")
        files.append((text.count("\n") + (not text.endswith("\n") and text != ""), f))
        funcs += [(n, f"{f}:{line} {name}") for name, line, n in functions(f, text)]
    public = simulation_public_methods(root)
    if listing is not None:
        print(f"{len(files)} source files, {len(funcs)} functions; Simulation's public methods: {public}")
        print("longest files:", *(f"  {n:5} {f}" for n, f in sorted(files, reverse=True)[:listing]), sep="\n")
        print("longest functions:", *(f"  {n:5} {f}" for n, f in sorted(funcs, reverse=True)[:listing]), sep="\n")
        return 0
    breaches = [f"sizes: {f}: {n} lines (at most {MAX_FILE_LINES})" for n, f in files if n > MAX_FILE_LINES]
    breaches += [f"sizes: {f}: {n} lines (at most {MAX_FUNCTION_LINES})" for n, f in funcs if n > MAX_FUNCTION_LINES]
    if public > MAX_SIMULATION_PUBLIC:
        breaches.append(f"sizes: sim/simulation.h: Simulation has {public} public methods (at most {MAX_SIMULATION_PUBLIC})")
    print(*breaches, sep="\n") if breaches else print(
        f"sizes: {len(files)} files of at most {MAX_FILE_LINES} lines, {len(funcs)} functions of at most "
        f"{MAX_FUNCTION_LINES}, Simulation's public methods {public} (at most {MAX_SIMULATION_PUBLIC})")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
