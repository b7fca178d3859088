import pytest

from linclf.display import table


def test_table_has_html_latex_and_text():
    t = table(["update", "w after"], [[1, "(3, 3)"], [2, "x_1 & 50%"]])
    assert "<th>update</th>" in t._repr_html_() and "<td>x_1 &amp; 50%</td>" in t._repr_html_()
    md = t._repr_markdown_().splitlines()
    assert md[0] == "| update | w after |" and md[1] == "|---|---|"
    assert md[3] == r"| 2 | x\_1 & 50% |"
    assert "object>" not in repr(t) and repr(t).splitlines()[0].startswith("update")


def test_table_rejects_ragged_rows():
    with pytest.raises(ValueError, match="row 1 has 1 cells but the header has 2 columns"):
        table(["a", "b"], [[1, 2], [3]])
