"""What the file system can do to a walker: names, links leaving the
folder, loops, special files, permissions and sparse files."""

import os
import socket
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import OUTSIDE_MARKER, PARA, Corpus  # noqa: E402


def file_system(c: Corpus):
    outside = c.out.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text(f"{OUTSIDE_MARKER} this file lives outside the ingested folder.\n")
    links = [  # (name, target, note, is_dir)
        ("link-to-etc-passwd.txt", "/etc/passwd", "absolute link out of the folder", False),
        ("link-dangling.txt", "does-not-exist.txt", "dangling", False),
        ("loop-a.txt", "loop-b.txt", "a -> b -> a", False),
        ("loop-b.txt", "loop-a.txt", "b -> a -> b", False),
    ]
    if not c.small:
        links += [
            ("link-outside-dir", "../outside", "relative link to a sibling folder", True),
            ("link-outside-file.txt", "../outside/secret.txt", "relative link to a file outside", False),
            ("link-to-etc", "/etc", "absolute link to a folder", True),
            ("loop-self.txt", "loop-self.txt", "links to itself", False),
        ]
    for name, target, note, is_dir in links:
        os.symlink(target, c.path(name))
        c.record(name, "symlink", "skipped", note, **({"dir": True} if is_dir else {}))
    if not c.small:
        # A folder link back to its ancestor: following it would list forever.
        (c.out / "loopdir").mkdir()
        (c.out / "loopdir" / "good-inside.md").write_text("# Inside\n\n" + PARA)
        c.record("loopdir/good-inside.md", "good-control", "indexed", "beside a loop link: the loop must not stop the walk")
        os.symlink("..", c.path("loopdir/up"))
        c.record("loopdir/up", "symlink", "skipped", "link to its own ancestor", dir=True)
    specials = [("fifo.txt", "fifo")] + ([("fifo.pdf", "fifo"), ("device-null.txt", (1, 3)), ("device-zero.txt", (1, 5)), ("socket.txt", "socket")] if not c.small else [])
    for name, what in specials:
        p = c.path(name)
        try:
            if what == "fifo":
                os.mkfifo(p)
            elif what == "socket":
                s = socket.socket(socket.AF_UNIX)
                s.bind(p)
                s.close()
            else:
                os.mknod(p, stat.S_IFCHR | 0o644, os.makedev(*what))
        except OSError as e:  # no CAP_MKNOD in most containers
            print(f"make_corpus: cannot create {name}: {e}", file=sys.stderr)
            continue
        c.record(name, "special-file", "skipped", "reading it would block (FIFO) or never end (/dev/zero)")
    body = PARA.encode()
    names = [b"name\nwith-newline.txt", b"bad-\xff\xfe-bytes.txt"]
    if not c.small:
        names += [
            b"-rf.txt",
            b"tab\there.txt",
            b"ctrl-\x01\x07\x1b[31mred.txt",
            b"--help.md",
            b"-",
            b"a" * 251 + b".txt",  # 255 bytes: the longest name ext4 allows
            b"latin1-caf\xe9.txt",
            b"<img src=x onerror=alert(1)>.txt",
            b"<script>alert('name')<\xe2\x88\x95script>.md",
            b"'; DROP TABLE documents;--.txt",
            b"page#page=3.txt",
            b"query?x=1&y=..%2f..%2fetc.txt",
            b"rtl-\xe2\x80\xaetxt.exe.txt",
            b" leading and trailing space .txt",
            b"\xf0\x9f\x92\xa5 emoji.txt",
        ]
    for raw in names:
        with open(c.path(raw), "wb") as f:
            f.write(body)
        c.record(raw, "name", "either", "ordinary text; only the name is hostile")
    if not c.small:
        # A path longer than PATH_MAX (4096): 20 folders of 200 bytes each,
        # made with dir_fd because the full path cannot be opened.
        fd = os.open(c.out, os.O_RDONLY)
        rel = []
        for i in range(20):
            d = f"{i:02d}" + "d" * 198
            os.mkdir(d, dir_fd=fd)
            nfd = os.open(d, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
            rel.append(d)
        wfd = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(wfd, body)
        os.close(wfd)
        os.close(fd)
        c.record("/".join(rel + ["deep.txt"]), "name", "either", "path longer than PATH_MAX")
    c.add("unreadable.txt", body, "permission", "either", "chmod 000 (root still reads it)")
    os.chmod(c.path("unreadable.txt"), 0)
    if not c.small:
        (c.out / "unreadable-dir").mkdir()
        (c.out / "unreadable-dir" / "inside.txt").write_bytes(body)
        os.chmod(c.out / "unreadable-dir", 0)
        c.record("unreadable-dir/inside.txt", "permission", "either", "in a chmod 000 folder")
    # Sparse: 3 GiB of apparent size, no blocks on disk.
    for name in ["sparse-3g.txt"] + (["sparse-3g.pdf"] if not c.small else []):
        with open(c.path(name), "wb") as f:
            if name.endswith(".pdf"):
                f.write(b"%PDF-1.7\n")
            f.truncate(3 << 30)
        c.record(name, "sparse", "failed", "3 GiB apparent size > max_file_bytes")
