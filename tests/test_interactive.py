"""linclf.interactive: self-contained HTML sliders and the live/static switch."""

from __future__ import annotations

import base64
import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from linclf import interactive  # noqa: E402
from linclf.interactive import Demo, StaticSlider, demo, static_slider  # noqa: E402


@pytest.fixture(autouse=True)
def _book_build(monkeypatch):
    # As during the book build: static sliders, never widgets.
    monkeypatch.setenv("LINCLF_BOOK_BUILD", "1")


def line_figure(slope):
    """A tiny figure whose pixels depend on ``slope``."""
    fig = Figure(figsize=(1.5, 1.5))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, slope])
    ax.set_ylim(-3, 3)
    return fig


def payload(html):
    """The JSON data block of a slider's HTML."""
    m = re.search(r'<script type="application/json" id="([^"]+)-data">(.*?)</script>', html, re.S)
    assert m, "no JSON data block"
    return m.group(1), json.loads(m.group(2))


def test_demo_html_has_one_png_frame_per_value():
    values = [-2.0, -1.0, 0.0, 1.0, 2.0]
    html = demo(line_figure, slope=values)._repr_html_()
    uid, data = payload(html)
    assert data["kind"] == "img"
    assert len(data["frames"]) == len(values)
    assert all(f.startswith("data:image/png;base64,") for f in data["frames"])
    for f in data["frames"]:
        assert base64.b64decode(f.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    # N frames in the data block plus the one shown initially
    assert html.count("data:image/png;base64,") == len(values) + 1
    assert f'max="{len(values) - 1}"' in html
    assert data["labels"] == ["-2", "-1", "0", "1", "2"]


def test_value_to_frame_mapping():
    values = [-2.0, 0.0, 2.0]
    d = demo(line_figure, slope=values, initial=2.0)
    frames = d.static().frames
    assert len(set(frames)) == 3, "different values must give different frames"
    for i, v in enumerate(values):
        assert d.index(v) == i
        # re-rendering the value alone gives the same picture as its frame
        alone = static_slider([line_figure(v)], [str(v)]).frames[0]
        assert alone == frames[i]
    assert d.index(1.9) == 2  # nearest listed value
    html = d._repr_html_()
    assert 'value="2"' in html  # the initial value 2.0 is frame 2
    assert f'src="{frames[2]}"' in html
    assert ">2</output>" in html


def test_ids_unique_across_two_demos():
    a = demo(lambda v: f"<p>{v}</p>", v=[1, 2])._repr_html_()
    b = demo(lambda v: f"<p>{v}</p>", v=[1, 2])._repr_html_()
    ids_a = set(re.findall(r'id="([^"]+)"', a))
    ids_b = set(re.findall(r'id="([^"]+)"', b))
    assert len(ids_a) == len(re.findall(r'id="', a)), "ids repeat inside one demo"
    assert ids_a and ids_b and not ids_a & ids_b
    # the script addresses its own elements only
    uid_a = payload(a)[0]
    assert all(i.startswith(uid_a) for i in re.findall(r'getElementById\("([^"]+)"\)', a))


def test_html_is_self_contained():
    html = demo(line_figure, slope=[0.0, 1.0])._repr_html_()
    assert "http" not in html.lower()
    assert "<script src" not in html and " src=" not in html.replace('src="data:', "")
    assert "<input type=\"range\"" in html


def test_html_frames_and_script_escaping():
    s = static_slider(["<b>a</b>", "</script><i>b</i>"], ["a", "b"], name="t")
    html = s._repr_html_()
    # a frame cannot close the data block early
    assert html.count("</script>") == 2
    _, data = payload(html)
    assert data["kind"] == "html" and data["frames"][1] == "</script><i>b</i>"


def test_static_slider_accepts_png_bytes_and_closes_pyplot_figures():
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    n_open = len(plt.get_fignums())
    s = static_slider([fig], ["only"], dpi=40)
    assert len(plt.get_fignums()) == n_open - 1
    png = base64.b64decode(s.frames[0].split(",", 1)[1])
    again = static_slider([png], ["only"])
    assert again.frames == s.frames


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: demo(line_figure), TypeError, "exactly one parameter"),
        (lambda: demo(line_figure, a=[1], b=[2]), TypeError, "exactly one parameter"),
        (lambda: demo(line_figure, a=list(range(31))), ValueError, "max_frames"),
        (lambda: demo(line_figure, a=[]), ValueError, "no values"),
        (lambda: demo(line_figure, a=5), TypeError, "1-D sequence"),
        (lambda: demo(line_figure, a="abc"), TypeError, "1-D sequence"),
        (lambda: demo(line_figure, a=[1, 2], initial=3), ValueError, "initial"),
        (lambda: demo(42, a=[1]), TypeError, "callable"),
        (lambda: demo(line_figure, a=[1], max_frames=50), ValueError, "budget"),
        (lambda: static_slider([], []), ValueError, "at least one frame"),
        (lambda: static_slider([b"abc"], ["x"]), ValueError, "PNG"),
        (lambda: static_slider([object()], ["x"]), TypeError, "frame must be"),
        (lambda: static_slider(["<p/>", "<p/>"], ["x"]), ValueError, "labels"),
        (lambda: demo(lambda v: None, a=[1]).static(), TypeError, "returned None"),
    ],
)
def test_bad_input_is_rejected(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_mixed_frame_kinds_rejected():
    with pytest.raises(ValueError, match="mix"):
        static_slider([line_figure(1.0), "<p>x</p>"], ["a", "b"])


def test_numpy_values_and_format():
    d = demo(lambda v: f"<p>{v:.1f}</p>", w0=np.linspace(0, 1, 3), fmt=".2f")
    assert d.values == [0.0, 0.5, 1.0]
    assert d.labels == ["0.00", "0.50", "1.00"]
    assert isinstance(d, Demo) and isinstance(d.static(), StaticSlider)


def test_live_switch(monkeypatch):
    # Outside a kernel (plain pytest) the demo is never live.
    monkeypatch.delenv("LINCLF_BOOK_BUILD")
    assert interactive._in_live_kernel() is False
    monkeypatch.setenv("LINCLF_BOOK_BUILD", "1")
    assert interactive._in_live_kernel() is False


def test_widget_calls_render_live():
    pytest.importorskip("ipywidgets")
    calls = []

    def render(v):
        calls.append(v)
        return f"<p>{v}</p>"

    d = demo(render, k=[1, 2, 3])
    box = d.widget()
    slider = box.children[0]
    assert calls == [2]  # the initial (middle) value is drawn at once
    slider.value = 3
    assert calls == [2, 3]
    assert not d._static, "the live widget must not precompute the static frames"


def test_static_slider_offers_a_png_of_its_initial_frame_beside_the_html():
    # A PDF (or any front end without JavaScript) shows the initial frame, not a repr.
    import base64

    import matplotlib.pyplot as plt

    figs = []
    for k in range(3):
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.plot([0, k])
        figs.append(fig)
    slider = static_slider(figs, ["a", "b", "c"], name="k", initial=1)
    bundle = slider._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert bundle["image/png"] == slider.frames[1].split(",", 1)[1]
    assert "object>" not in bundle["text/plain"] and "k = b" in bundle["text/plain"]
    html_only = static_slider(["<b>1</b>", "<b>2</b>"], ["1", "2"])._repr_mimebundle_()
    assert "image/png" not in html_only and html_only["text/plain"].startswith("[interactive demo")
