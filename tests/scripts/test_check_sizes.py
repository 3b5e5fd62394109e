"""tests/check_sizes.py's rules on small sources written here: which brace blocks of C++ are
functions (and how long), Python defs, shell functions, and Simulation's public methods.
Run: /usr/bin/python3 -m pytest -q tests/scripts/test_check_sizes.py   (ctest: sizes_rules)"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import check_sizes  # noqa: E402

CPP = """\
namespace acme {
namespace {

struct Shape {
  int gpus = 0;
  bool fits(int free) const {
    return free >= gpus;
  }
};

enum class Kind : int { A, B };
const int kTable[] = {1, 2, 3};
const auto twice = [](int x) {
  return 2 * x;
};

}  // namespace

Cluster::Cluster(int nodes)
    : nodes_{nodes}, free_(nodes, 8) {
  for (int n = 0; n < nodes; ++n) {
    if (n > 0) {
      free_[n] = 8;  // "}" in a comment { and a string: "{"
    }
  }
  auto f = [&](int x) { return x + 1; };
}

int Cluster::count(int gpus) const noexcept {
  return gpus;
}

TEST_CASE("a test { with braces }", "[x]") {
  CHECK(true);
}

}  // namespace acme
"""


def test_cpp_functions_are_blocks_after_a_parameter_list_or_member_initializers():
    found = {(name, first): lines for name, first, lines in check_sizes.cpp_functions(CPP)}
    assert found == {
        ("fits", 6): 3,             # a method inside a struct
        ("twice", 13): 3,           # a lambda at namespace scope
        ("Cluster::Cluster", 20): 8,  # braced member initializers, then the body (from its brace); its lambda is part of it
        ("Cluster::count", 29): 3,
        ("TEST_CASE", 33): 3,
    }


def test_python_and_shell_functions():
    py = "def f():\n    x = 1\n\n    return x\n\n\nclass A:\n    def g(self):\n        pass\n"
    assert sorted(check_sizes.python_functions(py)) == [("f", 1, 4), ("g", 8, 2)]
    sh = 'run_once() {  # a comment\n  local x="${1}"\n  echo "$x"\n}\nother() { :; }\n'
    assert check_sizes.shell_functions(sh) == [("run_once", 1, 4), ("other", 5, 1)]


def test_simulation_public_methods_are_counted_up_to_private(tmp_path):
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim/simulation.h").write_text(
        "class Simulation {\n public:\n  struct Run { int a(); };\n  void step();\n"
        "  int now() const { return 1; }\n  using Id = int;\n  Simulation(int x,\n             int y);\n"
        " private:\n  void hidden();\n};\n")
    assert check_sizes.simulation_public_methods(tmp_path) == 3
