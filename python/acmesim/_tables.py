"""A run's captured tables (io/captured_table.h, as _acmesim.run returns them): made into
DataFrames, and written back as the CSV files `acmesim run` writes, byte for byte.

A table is (header, columns, rows); a column is (kind, values, blank, decimals): kind "integer"
(an int64 array), "real" (a float64 array, printed with `decimals` decimals), "text" ((codes,
distinct): codes into the distinct texts, -1 where blank) or "blank" (None); blank, a uint8 mask
of the blank cells (empty when none is)."""
import numpy as _np
import pandas as _pd


def frame(table, strings):
    """The DataFrame of a captured table, made of its arrays as they are: copy=False keeps one
    block a column (pandas would otherwise copy every integer column twice to merge them; an
    operation that needs them merged does it then). `strings`: texts stay strings (a summary's
    configuration values), but for true/false, which become bools."""
    header, columns, table_rows = table
    data = {}
    for name, (kind, values, blank, _decimals) in zip(header, columns):
        blank = _np.asarray(blank, dtype=bool)  # empty: no cell of the column is blank
        if kind == "integer":
            data[name] = _pd.arrays.IntegerArray(values, blank) if blank.any() else values
        elif kind == "real":
            data[name] = values
        elif kind == "text":
            codes, categories = values
            data[name] = _text_column(codes, categories, strings)
        else:
            data[name] = _np.full(table_rows, _np.nan)
    return _pd.DataFrame(data, copy=False)


def _text_column(codes, categories, strings):
    """Texts as pandas reads them: numbers where every one is a number (ids, the summaries'
    statistics), few distinct texts as a categorical (type, state, user), else strings; blank: NaN.
    With `strings`, a column of true and false only is bool."""
    # float() takes every text pd.to_numeric takes: a text it refuses spares the conversion.
    if categories and all(map(_reads_as_float, categories)):
        numbers = _np.asarray(_pd.to_numeric(_np.array(categories, dtype=object), errors="coerce"))
        if not _np.isnan(numbers.astype(float)).any():
            values = numbers[codes]
            if (codes < 0).any():
                values = values.astype(float)
                values[codes < 0] = _np.nan
            return values
    if strings and categories and set(categories) <= {"true", "false"} and not (codes < 0).any():
        return _np.array([c == "true" for c in categories])[codes]
    if strings or len(categories) * 2 > len(codes):
        values = _np.array(categories, dtype=object)[codes] if categories else _np.full(len(codes), None)
        values[codes < 0] = None
        return values
    return _pd.Categorical.from_codes(codes, _pd.Index(categories, dtype=object))


def _reads_as_float(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def write_csv(table, path):
    """Writes a captured table to `path` as io/csv.h's CsvWriter writes it: cells joined by
    commas, rows ending with a line break, a text quoted only when it holds a comma, a quote or a
    line break, reals with their column's decimals ("-0.000" as "0.000"), blank cells empty."""
    header, columns, rows = table
    cells = [_column_cells(column, rows) for column in columns]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(map(_quoted, header)) + "\n")
        f.writelines(",".join(row) + "\n" for row in zip(*cells))


def _column_cells(column, rows):
    kind, values, blank, decimals = column
    if kind == "integer":
        cells = [str(v) for v in values.tolist()]
    elif kind == "real":
        cells = [_fixed(v, decimals) for v in values.tolist()]
    elif kind == "text":
        codes, distinct = values
        texts = [_quoted(t) for t in distinct]
        cells = [texts[c] if c >= 0 else "" for c in codes.tolist()]
    else:
        return [""] * rows
    for row in _np.flatnonzero(_np.asarray(blank, dtype=bool)).tolist():
        cells[row] = ""
    return cells


def _fixed(v, decimals):
    if v != v or v in (float("inf"), float("-inf")):
        return ""
    text = f"{v:.{decimals}f}"
    return text[1:] if text[0] == "-" and not text.strip("-0.") else text


def _quoted(text):
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text
