"""The grader's output folder: created by the grader, written without following links.

Rules (``linclf-grade --out DIR``):

* ``DIR``'s parent must exist; the grader creates ``DIR`` itself (mode 0700).
* An existing ``DIR`` is accepted only if it is a real directory (not a
  symlink), owned by the user running the grader, writable by nobody else,
  and either empty or an earlier output folder of the grader (it holds the
  marker file :data:`MARKER`).  Anything else is refused with a message:
  a folder someone else made under a world-writable ``/tmp`` is never used.
* Every file and subfolder is created relative to the folder's open file
  descriptor with ``O_NOFOLLOW`` (and ``O_EXCL`` after removing an old file of
  the same name), so a symlink planted inside, or a swap of ``DIR`` in its
  parent after it was opened, cannot redirect a write.  Files are mode 0600
  (grades are personal data).
"""

from __future__ import annotations

import os
import stat

MARKER = ".linclf-grade-output"
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class OutputRefused(ValueError):
    """The output folder is not one the grader may write into."""


def _check(fd, where):
    st = os.fstat(fd)
    if not stat.S_ISDIR(st.st_mode):
        raise OutputRefused(f"{where} is not a directory")
    if st.st_uid != os.geteuid():
        raise OutputRefused(f"{where} belongs to uid {st.st_uid}, not to the user running the "
                            "grader; choose a new --out folder")
    if st.st_mode & 0o022:
        raise OutputRefused(f"{where} is writable by other users; choose a new --out folder")


def _check_ancestors(folder, where):
    """Refuse a folder that another user could move away and replace by a link.

    The grader writes some outputs (collected copies, feedback, LMS files) by path
    inside the folder it created; that is safe only if no other user can rename a
    folder on the way to it. Each ancestor must belong to this user or to root and
    must not be writable by others unless it has the sticky bit (as ``/tmp`` does),
    the rule OpenSSH applies to the paths of its key files.
    """
    me = os.geteuid()
    path = os.path.abspath(folder)
    while True:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise OutputRefused(f"{where}: {path} cannot be inspected ({exc.strerror})") from None
        if st.st_uid not in (me, 0):
            raise OutputRefused(f"{where}: {path} belongs to another user, who could move the "
                                "output folder away; choose a folder of your own")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            raise OutputRefused(f"{where}: {path} is writable by other users (and not sticky), "
                                "who could move the output folder away; choose another place")
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


class OutputDir:
    """An output folder opened safely; see the module docstring.

    Parameters
    ----------
    path : str or Path
        The folder to create (or reuse, under the rules above).
    """

    def __init__(self, path):
        self.path = os.path.abspath(os.fspath(path))
        parent, name = os.path.split(self.path)
        if not name or name in (".", ".."):
            raise OutputRefused(f"--out {path}: give the name of a new folder")
        try:
            pfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise OutputRefused(f"--out {path}: its parent folder {parent} cannot be opened "
                                f"({exc.strerror}); create it first") from None
        try:
            _check_ancestors(parent, f"--out {path}")
        except OutputRefused:
            os.close(pfd)
            raise
        try:
            created = True
            try:
                os.mkdir(name, 0o700, dir_fd=pfd)
            except FileExistsError:
                created = False
            try:
                self.fd = os.open(name, _DIR, dir_fd=pfd)
            except OSError as exc:
                raise OutputRefused(f"--out {path} exists and is not a plain directory "
                                    f"({exc.strerror}); choose a new folder") from None
        finally:
            os.close(pfd)
        try:
            _check(self.fd, f"--out {path}")
            if not created:
                entries = os.listdir(self.fd)
                if entries and MARKER not in entries:
                    raise OutputRefused(
                        f"--out {path} exists, is not empty and was not made by linclf-grade; "
                        "choose a new folder (the grader creates it)")
            self.write_bytes(MARKER, b"output folder of linclf-grade\n")
        except BaseException:
            os.close(self.fd)
            raise

    def _open_new(self, name, dir_fd):
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"bad output file name {name!r}")
        try:
            return os.open(name, _FLAGS, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            os.unlink(name, dir_fd=dir_fd)  # removes a link itself, never its target
            return os.open(name, _FLAGS, 0o600, dir_fd=dir_fd)

    def subdir(self, name):
        """File descriptor of the subfolder ``name`` (created if missing)."""
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"bad output folder name {name!r}")
        try:
            os.mkdir(name, 0o700, dir_fd=self.fd)
        except FileExistsError:
            pass
        fd = os.open(name, _DIR, dir_fd=self.fd)
        try:
            _check(fd, os.path.join(self.path, name))
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write_bytes(self, name, data, subdir=None):
        """Write ``data`` to ``name`` (inside ``subdir`` if given); return its path."""
        dir_fd = self.subdir(subdir) if subdir else self.fd
        try:
            fd = self._open_new(name, dir_fd)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        finally:
            if subdir:
                os.close(dir_fd)
        return os.path.join(self.path, *([subdir] if subdir else []), name)

    def write_text(self, name, text, subdir=None):
        return self.write_bytes(name, text.encode("utf-8"), subdir)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
