"""A table an experiment's script writes into its README: the lines between
"<!-- NAME table: SCRIPT -->" and "<!-- end of NAME table -->" are replaced, so that the README's
numbers are always those of the committed CSVs (scripts/docs_check.sh reruns the scripts)."""
import pathlib


def replace_table(readme: pathlib.Path, name: str, script: str, lines: list[str]) -> None:
    start, end = f"<!-- {name} table: {script} -->", f"<!-- end of {name} table -->"
    head, rest = readme.read_text().split(start, 1)
    readme.write_text(head + start + "\n" + "\n".join(lines) + "\n" + end + rest.split(end, 1)[1])
