#!/usr/bin/env python3
"""Check that every citation of the formulation in the Rust sources resolves.

The code cites docs/formulation.md in its comments:

* sections: ``§4.8``, ``§3.7.5``, ``§8.1.`` (a sentence's full stop is not part of it),
  ranges ``§3–§4.2``, ``§3.8.1–3.8.3``, lists ``§4.2/§4.8``, ``§§3.7, 3.8``;
* implementation notes: ``§7 item 5`` (a numbered item of §7), ``§7 items 2–3``;
* appendices: ``Appendix A``;
* equation labels: ``(A.2)``, ``(P-30)``, and the formulation's own numbers ``(12a)``, ``(5')``,
  ``(11-poly)``, ``(17)`` (a bare number also resolves to its lettered family, (17a)…(17f)).

Citations of the FESD-J paper's own sections, written ``[P] §2.4`` or ``paper §2.4``, resolve
against the paper-section mentions in the formulation's headings, e.g. ``([P] §2.4)``.
Citations of other literature (``[F] §…``, ``[M] §…``, ``Wächter & Biegler 2006, §3.3``,
``Davis, *Book*, §4.6``) are skipped and counted.

Bare equation numbers are checked only in the layers that cite the formulation
(EQUATION_DIRS); elsewhere ``(0)`` or ``(1)`` is ordinary prose.

Usage: python3 tools/check_formulation_refs.py [--doc docs/formulation.md] [-v] [PATH ...]
(default PATH: src). Prints every unresolved citation as ``file:line: citation`` and exits 1 if
there is one, else prints the count of resolved citations and exits 0 (2 on a usage error).
Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Directories (relative to the repository root, '/'-separated) whose comments cite equation
# numbers of the formulation.
EQUATION_DIRS = ("src/fesdj", "src/solver/mpcc", "src/mpc", "src/config", "src/cli", "src/app")

SEC_NUM = r"\d+(?:\.\d+)*"
# One § citation, with an optional range tail: §3.8.1–3.8.3, §3–§4.2 (the second § is then
# matched on its own), §§3.7, 3.8.
SECTION_RE = re.compile(rf"(§§?)\s*({SEC_NUM}|[A-Z](?![A-Za-z]))")
RANGE_TAIL_RE = re.compile(rf"\s*[–-]\s*({SEC_NUM})")
LIST_TAIL_RE = re.compile(rf"\s*(?:,|and)\s*({SEC_NUM})")
ITEM_RE = re.compile(r"\s+items?\s+(\d+)(?:\s*(?:[–-]|and|,)\s*(\d+))?")
APPENDIX_RE = re.compile(r"\bAppendix\s+([A-Z])\b")
EQ_LABEL = r"A\.\d+|P-\d+[a-z]?|\d{1,2}[a-z]?'?(?:-poly)?"
EQ_RE = re.compile(rf"(?<![\w)\]}}'.])\(({EQ_LABEL})\)")
# Which literature a citation belongs to, from the text just before it.
PAPER_BEFORE = re.compile(r"(?:\[P\]|\bpaper)\s*$")
OTHER_BEFORE = re.compile(r"(?:\[(?:F|M|N)\]|\b(?:19|20)\d\d[a-z]?\s*,|\*\s*,|\bet al\.\s*,?)\s*$")
CONTINUES = re.compile(r"^\s*(?:,|/|and|or)\s*$")


@dataclass
class Targets:
    sections: set[str] = field(default_factory=set)
    paper_sections: set[str] = field(default_factory=set)
    appendices: set[str] = field(default_factory=set)
    items7: set[int] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)


def parse_doc(text: str) -> Targets:
    t = Targets()
    in7 = False
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            m = re.match(rf"({SEC_NUM})\.?\s", title)
            if m:
                t.sections.add(m.group(1))
            m = re.match(r"Appendix\s+([A-Z])\b", title)
            if m:
                t.appendices.add(m.group(1))
            in7 = line.startswith("## ") and title.startswith("7.")
            if line.startswith("## ") and not title.startswith("7."):
                in7 = False
            for p in re.finditer(r"\[P\]", title):
                seg = re.split(r"[;)\[]", title[p.end():], maxsplit=1)[0]
                t.paper_sections.update(re.findall(rf"§({SEC_NUM})", seg))
        elif in7:
            m = re.match(r"(\d+)\.\s", line)
            if m:
                t.items7.add(int(m.group(1)))
    # Equation labels, from the text with the LaTeX wrappers removed.
    norm = text
    for _ in range(3):
        norm = re.sub(r"\\text\{([^{}]*)\}", r"\1", norm)
    norm = norm.replace("{-}", "-").replace("{–}", "–")
    label = re.compile(rf"^(?:{EQ_LABEL})$")
    for m in re.finditer(r"\(([^()\n]{1,40})\)", norm):
        tok = m.group(1).strip()
        if label.match(tok):
            t.labels.add(tok)
            continue
        rng = re.match(r"^(\d{1,2})([a-z])[–-]([a-z])$", tok)  # (13b–d)
        if rng:
            for c in range(ord(rng.group(2)), ord(rng.group(3)) + 1):
                t.labels.add(f"{rng.group(1)}{chr(c)}")
            continue
        rng = re.match(r"^(\d{1,2})[–-](\d{1,2})$", tok)  # (24-25)
        if rng:
            for k in range(int(rng.group(1)), int(rng.group(2)) + 1):
                t.labels.add(str(k))
            continue
        # (P-A.1/A.2), (P-27, P-28, Table 1): split, keep the non-numeric labels only
        for piece in re.split(r"\s*[,/]\s*", tok):
            if label.match(piece) and not piece[0].isdigit():
                t.labels.add(piece)
                if piece.startswith("P-A."):
                    t.labels.add(piece[2:])
    return t


@dataclass
class Citation:
    path: str
    line: int
    text: str
    kind: str  # section | paper | item | appendix | equation
    key: str
    ok: bool = False


def comment_of(line: str) -> str | None:
    i = line.find("//")
    return None if i < 0 else line[i:]


def cites_equations(rel: str) -> bool:
    rel = rel.replace(os.sep, "/")
    return any(rel == d or rel.startswith(d + "/") for d in EQUATION_DIRS)


def scan_line(path: str, lineno: int, c: str, equations: bool, skipped: list[str]) -> list[Citation]:
    out: list[Citation] = []
    prev_end, prev_kind = None, None
    for m in SECTION_RE.finditer(c):
        before = c[: m.start()]
        if PAPER_BEFORE.search(before):
            kind = "paper"
        elif OTHER_BEFORE.search(before):
            kind = "other"
        elif prev_end is not None and CONTINUES.match(c[prev_end : m.start()]):
            kind = prev_kind
        else:
            kind = "section"
        nums = [m.group(2)]
        end = m.end()
        r = RANGE_TAIL_RE.match(c, end)
        if r:
            nums.append(r.group(1))
            end = r.end()
        if m.group(1) == "§§":
            while (lt := LIST_TAIL_RE.match(c, end)) or (lt := RANGE_TAIL_RE.match(c, end)):
                nums.append(lt.group(1))
                end = lt.end()
        shown = c[m.start() : end].rstrip(".")
        if kind == "other":
            skipped.append(f"{path}:{lineno}: {shown}")
        else:
            for n in nums:
                if re.fullmatch(r"[A-Z]", n):
                    out.append(Citation(path, lineno, shown, "appendix", n))
                else:
                    out.append(Citation(path, lineno, shown, kind, n))
            if kind == "section" and nums == ["7"]:
                it = ITEM_RE.match(c, end)
                if it:
                    a = int(it.group(1))
                    b = int(it.group(2)) if it.group(2) else a
                    for k in range(a, max(a, b) + 1):
                        out.append(Citation(path, lineno, c[m.start() : it.end()], "item", str(k)))
                    end = it.end()
        prev_end, prev_kind = end, kind
    for m in APPENDIX_RE.finditer(c):
        if re.search(r"\[P\]\s*,?\s*$", c[: m.start()]):
            continue
        out.append(Citation(path, lineno, m.group(0), "appendix", m.group(1)))
    for m in EQ_RE.finditer(c):
        lab = m.group(1)
        if lab[0].isdigit() and not equations:
            continue
        if OTHER_BEFORE.search(c[: m.start()]):
            skipped.append(f"{path}:{lineno}: {m.group(0)}")
            continue
        out.append(Citation(path, lineno, m.group(0), "equation", lab))
    return out


def resolve(cit: Citation, t: Targets) -> bool:
    k = cit.key
    if cit.kind == "section":
        return k in t.sections
    if cit.kind == "paper":
        return k in t.paper_sections
    if cit.kind == "appendix":
        return k in t.appendices
    if cit.kind == "item":
        return "7" in t.sections and int(k) in t.items7
    if cit.kind == "equation":
        if k in t.labels:
            return True
        return k.isdigit() and any(re.fullmatch(rf"{k}[a-z]", lab) for lab in t.labels)
    return False


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = Path(__file__).resolve().parent.parent
    ap.add_argument("--doc", default=str(root / "docs" / "formulation.md"), help="the formulation")
    ap.add_argument("--root", default=None,
                    help="repository root the EQUATION_DIRS are relative to (default: the parent of "
                         "each PATH's 'src' component, else this script's repository)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every citation")
    ap.add_argument("paths", nargs="*", help="files or directories to scan (default: src)")
    a = ap.parse_args(argv)
    try:
        doc = Path(a.doc).read_text(encoding="utf-8")
    except OSError as e:
        print(f"cannot read {a.doc}: {e}", file=sys.stderr)
        return 2
    targets = parse_doc(doc)
    paths = [Path(p) for p in a.paths] or [root / "src"]
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(p.rglob("*.rs")))
        elif p.is_file():
            files.append(p)
        else:
            print(f"no such file or directory: {p}", file=sys.stderr)
            return 2
    cits: list[Citation] = []
    skipped: list[str] = []
    cwd = Path.cwd()
    for f in files:
        fr = f.resolve()
        try:
            shown = str(fr.relative_to(cwd))
        except ValueError:
            shown = str(f)
        if a.root:
            base = Path(a.root).resolve()
        else:
            parts = fr.parts
            base = Path(*parts[: parts.index("src")]) if "src" in parts else root
        try:
            rel = str(fr.relative_to(base))
        except ValueError:
            rel = shown
        eq = cites_equations(rel)
        for n, line in enumerate(fr.read_text(encoding="utf-8").splitlines(), 1):
            c = comment_of(line)
            if c:
                cits.extend(scan_line(shown, n, c, eq, skipped))
    bad = []
    for cit in cits:
        cit.ok = resolve(cit, targets)
        if not cit.ok:
            bad.append(cit)
        if a.verbose:
            print(f"{cit.path}:{cit.line}: {cit.text} [{cit.kind} {cit.key}] "
                  f"{'ok' if cit.ok else 'UNRESOLVED'}")
    if a.verbose:
        for s in skipped:
            print(f"{s} [other literature, skipped]")
    for cit in bad:
        what = {"paper": " (paper section: no heading of the formulation mentions [P] §" + cit.key + ")",
                "item": " (no item " + cit.key + " in §7)"}.get(cit.kind, "")
        shown = cit.text if cit.kind != "section" or cit.text == "§" + cit.key else f"{cit.text} (§{cit.key})"
        print(f"{cit.path}:{cit.line}: {shown}{what}")
    if bad:
        print(f"{len(bad)} unresolved of {len(cits)} citations in {len(files)} files "
              f"(against {a.doc})", file=sys.stderr)
        return 1
    counts = {}
    for cit in cits:
        counts[cit.kind] = counts.get(cit.kind, 0) + 1
    detail = ", ".join(f"{counts[k]} {k}" for k in ("section", "item", "appendix", "equation", "paper") if k in counts)
    print(f"{len(cits)} citations resolved ({detail}) in {len(files)} files against {a.doc}; "
          f"{len(skipped)} citations of other literature skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
