"""Unit tests of the book's Sphinx extension helpers (no build needed)."""

import sys
from types import SimpleNamespace

import yaml

from conftest import ROOT

sys.path.insert(0, str(ROOT / "book_ext"))

from accessibility import fix_page  # noqa: E402
import execution_cache  # noqa: E402


def test_label_in_name_and_decorative_icons():
    html = ('<button aria-label="Search"><span>Search</span> <kbd>Ctrl</kbd>+<kbd>K</kbd></button>'
            '<button aria-label="Color mode"><i class="fa" title="Light"></i></button>'
            '<summary aria-label="Toggle hidden content"><p>Show code cell source</p></summary>')
    out = fix_page(html)
    assert 'aria-label="Search"' not in out            # the visible text names it now
    assert 'aria-label="Color mode"' in out            # no visible text: the label stays
    assert 'title="Light"' not in out and 'aria-hidden="true"' in out
    assert "Toggle hidden content" not in out


def test_chinese_text_is_marked_and_fixing_twice_changes_nothing():
    html = "<p>感知器 (perceptron) and 支持向量机</p><code>不要</code>"
    once = fix_page(html)
    assert once.count('lang="zh-Hans"') == 2
    assert '<span lang="zh-Hans">感知器</span>' in once and "<code>不要</code>" in once
    assert fix_page(once) == once


def test_bibliography_entries_become_list_items():
    html = '<div role="list"><div role="doc-biblioentry">A</div><div>B</div></div>'
    out = fix_page(html)
    assert out.count('role="listitem"') == 2


def test_execution_cache_is_used_only_when_asked(tmp_path, monkeypatch):
    # scripts/book.sh and scripts/pdf.sh alone execute every chapter from scratch (force);
    # only LINCLF_EXECUTION_CACHE (set by scripts/test.sh) moves a build to the shared cache
    assert yaml.safe_load((ROOT / "_config.yml").read_text())["execute"]["execute_notebooks"] == "force"
    config = SimpleNamespace(nb_execution_mode="force", nb_execution_cache_path="")
    monkeypatch.delenv(execution_cache.ENV, raising=False)
    execution_cache.use_shared_cache(None, config)
    assert (config.nb_execution_mode, config.nb_execution_cache_path) == ("force", "")
    monkeypatch.setenv(execution_cache.ENV, str(tmp_path / "cache"))
    execution_cache.use_shared_cache(None, config)
    assert (config.nb_execution_mode, config.nb_execution_cache_path) == ("cache", str(tmp_path / "cache"))
