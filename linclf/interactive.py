"""Sliders for the book: live in a Jupyter kernel, still working on the static site.

Two functions:

* :func:`demo` takes a function ``render(value)`` returning a matplotlib
  :class:`~matplotlib.figure.Figure` (or an HTML string) and one keyword
  argument listing the values of the parameter to explore::

      demo(render, w0=np.linspace(-2, 2, 21))

  In a live kernel (Jupyter, Binder, Colab) it shows an ipywidgets slider that
  calls ``render`` each time the slider moves. On the book's website there is
  no kernel, so during the book build (environment variable
  ``LINCLF_BOOK_BUILD=1``) it renders every value once and shows a
  self-contained HTML/JS slider: the frames are PNG data URIs, the control is a
  plain ``<input type="range">`` and the script is inline, so the page needs
  nothing from any other host.
* :func:`static_slider` builds the same HTML slider from frames computed
  elsewhere.

Frames are kept small (``dpi=80``, at most ``max_frames=30``) so that pages
stay light.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import uuid
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["Demo", "StaticSlider", "demo", "static_slider"]

MAX_FRAMES = 30
BOOK_BUILD_ENV = "LINCLF_BOOK_BUILD"


# --------------------------------------------------------------------------- #
# frames
# --------------------------------------------------------------------------- #
def _is_figure(obj) -> bool:
    # Import lazily: the rest of linclf must not need matplotlib.
    from matplotlib.figure import Figure

    return isinstance(obj, Figure)


def _figure_to_data_uri(fig, dpi: float) -> str:
    """PNG data URI of a figure; the figure is closed afterwards."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # No bbox_inches="tight": it draws the figure twice, and a page of
    # frames is rendered at every book build. Lay the figure out in render().
    fig.savefig(buf, format="png", dpi=dpi)
    # A pyplot-managed figure left open would be shown a second time by the
    # notebook's inline backend at the end of the cell.
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _to_frame(obj, dpi: float) -> tuple[str, str]:
    """Return ``(kind, payload)``: ``("img", data URI)`` or ``("html", markup)``."""
    if _is_figure(obj):
        return "img", _figure_to_data_uri(obj, dpi)
    if isinstance(obj, (bytes, bytearray)):
        if not bytes(obj[:8]) == b"\x89PNG\r\n\x1a\n":
            raise ValueError("bytes frames must be PNG images (they do not start with the PNG signature).")
        return "img", "data:image/png;base64," + base64.b64encode(bytes(obj)).decode("ascii")
    if isinstance(obj, str):
        if obj.startswith("data:image/png;base64,"):
            return "img", obj
        return "html", obj
    if hasattr(obj, "_repr_html_"):
        return "html", obj._repr_html_()
    raise TypeError(
        "a frame must be a matplotlib Figure, PNG bytes, a PNG data URI or an HTML "
        f"string; got {type(obj).__name__}."
    )


def _format_label(value, fmt) -> str:
    if fmt is None:
        if isinstance(value, (float, np.floating)):
            return f"{float(value):.4g}"
        return str(value)
    if callable(fmt):
        return str(fmt(value))
    if isinstance(fmt, str):
        return format(value, fmt)
    raise TypeError(f"fmt must be None, a format spec string or a callable; got {type(fmt).__name__}.")


# --------------------------------------------------------------------------- #
# the static slider
# --------------------------------------------------------------------------- #
_SCRIPT = """(function () {
  var root = document.getElementById("%(uid)s");
  var data = JSON.parse(document.getElementById("%(uid)s-data").textContent);
  var input = document.getElementById("%(uid)s-range");
  var label = document.getElementById("%(uid)s-label");
  var view = document.getElementById("%(uid)s-view");
  function show(i) {
    if (data.kind === "img") {
      view.src = data.frames[i];
      view.alt = data.alts[i];
    } else {
      view.innerHTML = data.frames[i];
    }
    label.textContent = data.labels[i];
    root.setAttribute("data-index", String(i));
  }
  input.addEventListener("input", function () { show(parseInt(input.value, 10)); });
  input.addEventListener("change", function () { show(parseInt(input.value, 10)); });
})();"""


class StaticSlider:
    """A self-contained HTML/JS slider over precomputed frames.

    Create it with :func:`static_slider` (or :func:`demo`); it displays itself
    in a notebook and on the static website through ``_repr_html_``.

    Attributes
    ----------
    frames : list of str
        PNG data URIs (``kind == "img"``) or HTML snippets (``kind == "html"``).
    labels : list of str
        The text shown next to the slider for each frame.
    kind : {"img", "html"}
    uid : str
        The id of the outer ``<div>``; element ids inside it start with it.

    Parameters
    ----------
    frames : list of (kind, data)
        Prepared frames, all of one kind (``"img"`` data URIs or ``"html"``).
    labels : list of str
        One label per frame.
    name : str, default "value"
        The slider's label.
    initial : int, default 0
        Index of the frame shown first.
    alt : str or None
        Alt text of the images (a description of what they show).
    """

    def __init__(self, frames, labels, *, name="value", initial=0, alt=None):
        if len(frames) == 0:
            raise ValueError("a slider needs at least one frame.")
        if len(labels) != len(frames):
            raise ValueError(f"got {len(frames)} frames but {len(labels)} labels.")
        if not 0 <= initial < len(frames):
            raise ValueError(f"initial={initial} is not a frame index (0..{len(frames) - 1}).")
        kinds = {kind for kind, _ in frames}
        if len(kinds) != 1:
            raise ValueError("frames mix images and HTML; use one kind for all frames.")
        self.kind = kinds.pop()
        self.frames = [payload for _, payload in frames]
        self.labels = [str(label) for label in labels]
        self.name = str(name)
        self.initial = int(initial)
        what = alt if alt is not None else f"Figure for {self.name}"
        self.alts = [f"{what} ({self.name} = {label})" for label in self.labels]
        self.uid = "linclf-slider-" + uuid.uuid4().hex[:12]

    def __len__(self) -> int:
        return len(self.frames)

    def _repr_mimebundle_(self, include=None, exclude=None):
        # The HTML slider for the website and Jupyter; beside it the initial frame
        # as a PNG and a one-line description, which is what a PDF or any other
        # front end without JavaScript shows.
        bundle = {
            "text/html": self._repr_html_(),
            "text/plain": f"[interactive demo: {self.name} = {self.labels[self.initial]}]",
        }
        if self.kind == "img":
            bundle["image/png"] = self.frames[self.initial].split(",", 1)[1]
        return bundle

    def _repr_html_(self) -> str:
        uid, i = self.uid, self.initial
        payload = json.dumps(
            {"kind": self.kind, "frames": self.frames, "labels": self.labels, "alts": self.alts}
        ).replace("</", "<\\/")  # a frame must not be able to close the <script> early
        esc = html.escape
        if self.kind == "img":
            view = (
                f'<img id="{uid}-view" class="linclf-slider-frame" src="{self.frames[i]}" '
                f'alt="{esc(self.alts[i])}" style="max-width:100%;height:auto;">'
            )
        else:
            view = f'<div id="{uid}-view" class="linclf-slider-frame">{self.frames[i]}</div>'
        return (
            f'<div id="{uid}" class="linclf-slider" data-index="{i}">\n'
            f"{view}\n"
            f'<div class="linclf-slider-control" style="display:flex;align-items:center;gap:0.6em;">'
            f'<label for="{uid}-range">{esc(self.name)}</label>'
            f'<input type="range" id="{uid}-range" min="0" max="{len(self) - 1}" step="1" '
            f'value="{i}" aria-label="{esc(self.name)}" style="flex:1;max-width:24em;">'
            f'<output id="{uid}-label" for="{uid}-range">{esc(self.labels[i])}</output></div>\n'
            f'<script type="application/json" id="{uid}-data">{payload}</script>\n'
            f"<script>{_SCRIPT % {'uid': uid}}</script>\n"
            "</div>"
        )


def static_slider(frames, labels, *, name="value", initial=0, alt=None, dpi=80):
    """A self-contained HTML slider over precomputed frames.

    Parameters
    ----------
    frames : sequence
        Matplotlib figures (rendered to PNG at ``dpi`` and closed), PNG
        bytes, PNG data URIs, or HTML strings; all images or all HTML.
    labels : sequence
        One label per frame, shown next to the slider.
    name : str, default "value"
        Name of the parameter, shown as the slider's label.
    initial : int, default 0
        Index of the frame shown first.
    alt : str, optional
        Alternative text of the image; the current label is appended.
    dpi : float, default 80
        Resolution used for figure frames.

    Returns
    -------
    StaticSlider
        Displays itself as HTML (``_repr_html_``).

    Raises
    ------
    ValueError
        If there are no frames, more than ``MAX_FRAMES``, or the number of
        labels differs from the number of frames.
    """
    frames = list(frames)
    labels = list(labels)
    if len(frames) > MAX_FRAMES:
        raise ValueError(f"{len(frames)} frames is too many for a web page (at most {MAX_FRAMES}).")
    if len(labels) != len(frames):
        raise ValueError(f"got {len(frames)} frames but {len(labels)} labels.")
    return StaticSlider([_to_frame(f, dpi) for f in frames], labels, name=name, initial=initial, alt=alt)


# --------------------------------------------------------------------------- #
# demo: live widget in a kernel, static slider on the website
# --------------------------------------------------------------------------- #
def _in_live_kernel() -> bool:
    """True in a Jupyter kernel that is not executing the book build."""
    if os.environ.get(BOOK_BUILD_ENV, "") not in ("", "0"):
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


class Demo:
    """An interactive figure over one parameter; create it with :func:`demo`.

    Attributes
    ----------
    name : str
        The parameter's name.
    values : list
        The parameter values of the static frames (and of the live slider).
    labels : list of str

    Parameters
    ----------
    render : callable
        ``render(value)`` returns a matplotlib Figure or an HTML string.
    name : str
        The parameter's name.
    values : list
        The parameter values to show.
    dpi : int, default 80
        Resolution of the static frames.
    initial : int
        Index of the value shown first (:func:`demo` resolves it from a value).
    alt : str or None
        Alt text of the static frames.
    fmt : str, callable or None
        Format of the value labels (e.g. ``".2f"``).
    """

    def __init__(self, render, name, values, *, dpi=80, initial=None, alt=None, fmt=None):
        self.render = render
        self.name = name
        self.values = values
        self.labels = [_format_label(v, fmt) for v in values]
        self.dpi = dpi
        self.initial = initial
        self.alt = alt
        self._static = None

    def index(self, value) -> int:
        """Index of the frame showing ``value`` (the nearest listed value).

        Parameters
        ----------
        value : object
            One of ``values``, or a number (the nearest listed value is used).

        Returns
        -------
        int
        """
        try:
            return self.values.index(value)
        except ValueError:
            pass
        try:
            numeric = np.asarray(self.values, dtype=float)
            return int(np.argmin(np.abs(numeric - float(value))))
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not one of the values of {self.name}.") from None

    def static(self) -> StaticSlider:
        """The HTML slider; renders every frame on first use.

        Returns
        -------
        StaticSlider
        """
        if self._static is None:
            frames = []
            for value in self.values:
                out = self.render(value)
                if out is None:
                    raise TypeError(
                        f"render({self.name}={value!r}) returned None; it must return a "
                        "matplotlib Figure or an HTML string."
                    )
                frames.append(_to_frame(out, self.dpi))
            self._static = StaticSlider(
                frames, self.labels, name=self.name, initial=self.initial, alt=self.alt
            )
        return self._static

    def _repr_html_(self) -> str:
        return self.static()._repr_html_()

    def widget(self):
        """An ipywidgets slider that calls ``render`` live (needs a kernel).

        Returns
        -------
        ipywidgets.VBox
            The slider above the output area it draws into.
        """
        import ipywidgets as widgets
        from IPython.display import HTML, display

        slider = widgets.SelectionSlider(
            options=list(zip(self.labels, self.values)),
            value=self.values[self.initial],
            description=self.name,
            continuous_update=False,
        )
        out = widgets.Output()

        def update(change=None):
            with out:
                out.clear_output(wait=True)
                result = self.render(slider.value)
                if _is_figure(result):
                    display(result)
                    import matplotlib.pyplot as plt

                    plt.close(result)
                else:
                    display(HTML(result if isinstance(result, str) else result._repr_html_()))

        slider.observe(update, names="value")
        update()
        return widgets.VBox([slider, out])

    def _ipython_display_(self):
        from IPython.display import display

        if _in_live_kernel():
            display(self.widget())
        else:
            display(self.static())


def demo(render: Callable, /, *, dpi=80, max_frames=MAX_FRAMES, initial=None, alt=None, fmt=None, **param):
    """A slider over one parameter of a figure, live or static.

    Parameters
    ----------
    render : callable
        ``render(value)`` returns a matplotlib Figure (or an HTML string) for
        one value of the parameter. It is called once per value on the
        website build and on every slider move in a live kernel, so it may
        re-fit a model.
    dpi : float, default 80
        Resolution of the static frames.
    max_frames : int, default 30
        Upper bound on the number of values (static pages carry every frame).
    initial : value, optional
        The value shown first (default: the middle value).
    alt : str, optional
        Alternative text describing the figure.
    fmt : str or callable, optional
        Format of the value label (e.g. ``".2f"``).
    **param
        Exactly one ``name=values`` pair: the parameter and the 1-D sequence of
        its values.

    Returns
    -------
    Demo
        In a live kernel it displays an ipywidgets slider; elsewhere (and on
        the website, built with ``LINCLF_BOOK_BUILD=1``) a self-contained HTML
        slider.

    Examples
    --------
    >>> d = demo(lambda t: f"<b>{t}</b>", t=[1, 2, 3])
    >>> d.static().frames
    ['<b>1</b>', '<b>2</b>', '<b>3</b>']
    """
    if not callable(render):
        raise TypeError(f"render must be callable; got {type(render).__name__}.")
    if len(param) != 1:
        raise TypeError(
            f"demo() takes exactly one parameter as name=values; got {sorted(param) or 'none'}."
        )
    (name, values), = param.items()
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a 1-D sequence of values; got {type(values).__name__}.")
    values = np.asarray(values).tolist() if isinstance(values, np.ndarray) else list(values)
    if np.ndim(values) != 1:
        raise ValueError(f"{name} must be a 1-D sequence of values.")
    if not values:
        raise ValueError(f"{name} has no values.")
    if len(values) > max_frames:
        raise ValueError(
            f"{name} has {len(values)} values; at most max_frames={max_frames} frames are allowed."
        )
    if max_frames > MAX_FRAMES:
        raise ValueError(f"max_frames={max_frames} exceeds the page budget of {MAX_FRAMES} frames.")
    if initial is None:
        start = len(values) // 2
    else:
        try:
            start = values.index(initial)
        except ValueError:
            raise ValueError(f"initial={initial!r} is not one of the values of {name}.") from None
    return Demo(render, name, values, dpi=dpi, initial=start, alt=alt, fmt=fmt)
