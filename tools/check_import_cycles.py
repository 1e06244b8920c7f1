#!/usr/bin/env python3
"""Import circles between the files of src/ (issue 28, item 5).

Builds the file-level dependency graph of the library crate (src/lib.rs and the modules below it;
src/bin/ are separate crates that only see the library through `fesdj_mpc::`) from

* `use crate::…`, `use super::…`, `use self::…` and relative `use` paths (a child module or a
  name in scope), also inside functions and inline modules;
* paths in code: `crate::a::b::C`, `super::x::y`, `self::x`, `$crate::…` (in macros), and paths
  through a module in scope (`kkt::Kkt` after `mod kkt;` or `use super::kkt;`).

Comments (doc comments included), string and character literals are skipped. Every path is
resolved to the FILE THAT DEFINES the named item: `pub use` re-exports (in mod.rs, lib.rs or
anywhere) are followed to the defining file, so an edge to a module's mod.rs (or a.rs of
a/b.rs) only exists when the item is really defined there. Importing a module by itself is no
edge (using an item through it is); `mod x;` declarations are no edges; a `pub use` re-export is
an edge of its own file only when that file also uses the name in its code. Glob imports
(`use super::*`) count for the names the file uses. Paths that name an associated item or enum
variant (`crate::a::Kind::X`) resolve to the file that defines the type.

Prints every strongly connected component with more than one file, with one shortest circle
through it and the import lines that form it, and every other edge inside the component; then
the same at the level of the top-level modules (ad, model, solver, …: the layering). Exit
status 1 if there is any circle, 0 with a summary otherwise.

Usage: python3 tools/check_import_cycles.py [--src DIR] [--edges] [--no-tests]
  --edges     also print the whole file graph
  --no-tests  leave out `#[cfg(test)]` modules
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# Lexer: identifiers, `::`, punctuation and braces with line numbers; no comments or literals.


@dataclass
class Tok:
    text: str
    line: int


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_]*(\.[0-9][0-9A-Za-z_]*)?")


def lex(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += src[i] == "\n"
                    i += 1
        elif (m := re.compile(r'(b?r)(#*)"').match(src, i)) and (
            i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")
        ):
            # raw (byte) string
            end = '"' + m.group(2)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
            line += src.count("\n", i, j)
            i = j
        elif c == '"' or (c == "b" and src.startswith('b"', i)):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            line += src.count("\n", i, j)
            i = j + 1
        elif c == "'" or (c == "b" and src.startswith("b'", i)):
            j = i + (2 if c == "b" else 1)
            if j < n and src[j] == "\\":
                k = src.find("'", j + 2)
                i = k + 1
            elif j + 1 < n and src[j + 1] == "'":
                i = j + 2  # 'x'
            else:
                # lifetime or label: 'ident
                m = _IDENT.match(src, j)
                i = m.end() if m else j
        elif c.isalpha() or c == "_":
            m = _IDENT.match(src, i)
            text = m.group(0)
            if text == "r" and src.startswith("#", m.end()):  # raw identifier r#name
                m2 = _IDENT.match(src, m.end() + 1)
                if m2:
                    toks.append(Tok(m2.group(0), line))
                    i = m2.end()
                    continue
            toks.append(Tok(text, line))
            i = m.end()
        elif c.isdigit():
            m = _NUMBER.match(src, i)
            i = m.end()
        elif src.startswith("::", i):
            toks.append(Tok("::", line))
            i += 2
        else:
            toks.append(Tok(c, line))
            i += 1
    return toks


# ---------------------------------------------------------------------------------------------
# Modules, items and use declarations.

ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}


@dataclass
class Use:
    segments: list[str]  # path; may end in "*" (glob) or "self"
    alias: str | None  # local name (None for globs)
    public: bool
    line: int


@dataclass
class Module:
    path: tuple[str, ...]  # ("crate", "solver", "kkt")
    file: Path
    parent: Module | None
    is_test: bool = False
    items: set[str] = field(default_factory=set)
    children: dict[str, Module] = field(default_factory=dict)
    file_children: set[str] = field(default_factory=set)  # `mod x;`
    uses: list[Use] = field(default_factory=list)
    # code tokens of this module (uses and inline child modules left out)
    code: list[Tok] = field(default_factory=list)

    def name(self) -> str:
        return "::".join(self.path)


def parse_use_tree(toks: list[Tok], i: int, prefix: list[str], out: list, line: int) -> int:
    """Parse one use tree starting at toks[i]; append (segments, alias) to out; return the index
    after it."""
    segs = list(prefix)
    if toks[i].text == "::":  # leading `::` (extern crate path)
        segs.append("::")
        i += 1
    while True:
        t = toks[i].text
        if t == "{":
            i += 1
            while toks[i].text != "}":
                i = parse_use_tree(toks, i, segs, out, line)
                if toks[i].text == ",":
                    i += 1
            return i + 1
        if t == "*":
            out.append((segs + ["*"], None))
            return i + 1
        segs.append(t)
        i += 1
        if toks[i].text == "::":
            i += 1
            continue
        alias = segs[-1]
        if toks[i].text == "as":
            alias = toks[i + 1].text
            i += 2
        if alias == "self":
            alias = segs[-2]
        out.append((segs, alias))
        return i


def skip_attr(toks: list[Tok], i: int) -> tuple[int, str]:
    """toks[i] is `#`; return the index after the attribute and its text."""
    j = i + 1
    if toks[j].text == "!":
        j += 1
    assert toks[j].text == "[", toks[j]
    depth, k = 0, j
    while True:
        if toks[k].text == "[":
            depth += 1
        elif toks[k].text == "]":
            depth -= 1
            if depth == 0:
                break
        k += 1
    return k + 1, " ".join(t.text for t in toks[j + 1 : k])


def parse_module(mod: Module, toks: list[Tok], no_tests: bool) -> None:
    """Fill `mod` from the tokens of its body."""
    i, n, depth = 0, len(toks), 0
    pending_test = False  # a `#[cfg(test)]` attribute precedes the next item
    while i < n:
        t = toks[i].text
        if t == "#" and i + 1 < n and toks[i + 1].text in ("[", "!"):
            i, attr = skip_attr(toks, i)
            if re.fullmatch(r"cfg \( test \)", attr):
                pending_test = True
            continue
        if t == "use" and (i == 0 or toks[i - 1].text != "::"):
            public = i > 0 and (
                toks[i - 1].text == "pub"
                or (toks[i - 1].text == ")" and toks[i - 3 : i - 1][0].text in ("pub", "("))
            )
            # pub(crate) use / pub(super) use / pub(in path) use
            if i > 0 and toks[i - 1].text == ")":
                k = i - 1
                while toks[k].text != "(":
                    k -= 1
                public = toks[k - 1].text == "pub"
            out: list = []
            j = parse_use_tree(toks, i + 1, [], out, toks[i].line)
            for segs, alias in out:
                mod.uses.append(Use(segs, alias, public, toks[i].line))
            assert toks[j].text == ";", (mod.file, toks[j])
            i = j + 1
            pending_test = False
            continue
        if t == "mod" and i + 1 < n and _IDENT.fullmatch(toks[i + 1].text):
            name = toks[i + 1].text
            if toks[i + 2].text == ";":
                if depth == 0:
                    mod.file_children.add(name)
                i += 3
                pending_test = False
                continue
            if toks[i + 2].text == "{":
                # inline module: its tokens up to the matching brace
                d, k = 0, i + 2
                while True:
                    if toks[k].text == "{":
                        d += 1
                    elif toks[k].text == "}":
                        d -= 1
                        if d == 0:
                            break
                    k += 1
                is_test = pending_test or mod.is_test
                if not (no_tests and is_test):
                    child = Module(mod.path + (name,), mod.file, mod, is_test)
                    parse_module(child, toks[i + 3 : k], no_tests)
                    if depth == 0:
                        mod.children[name] = child
                i = k + 1
                pending_test = False
                continue
        if depth == 0:
            if t in ITEM_KEYWORDS and i + 1 < n and _IDENT.fullmatch(toks[i + 1].text):
                nxt = toks[i + 1].text
                if not (t == "const" and nxt in ("fn", "unsafe", "async", "extern")) and nxt != "_":
                    if t != "union" or toks[i + 2].text in ("{", "<"):
                        mod.items.add(nxt)
            elif t == "macro_rules" and toks[i + 1].text == "!":
                mod.items.add(toks[i + 2].text)
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        if t in ("{", "}", ";"):
            pending_test = False
        mod.code.append(toks[i])
        i += 1


def load_crate(src: Path, no_tests: bool) -> tuple[Module, list[Module]]:
    """The module tree of the library crate rooted at src/lib.rs."""
    modules: list[Module] = []

    def load(path: tuple[str, ...], file: Path, parent: Module | None) -> Module:
        mod = Module(path, file, parent)
        parse_module(mod, lex(file.read_text(encoding="utf-8")), no_tests)
        # child files: a/b.rs or a/b/mod.rs, relative to a.rs's or a/mod.rs's directory
        if file.name in ("lib.rs", "mod.rs"):
            base = file.parent
        else:
            base = file.parent / file.stem
        for name in sorted(mod.file_children):
            for cand in (base / f"{name}.rs", base / name / "mod.rs"):
                if cand.exists():
                    mod.children[name] = load(path + (name,), cand, mod)
                    break
            else:
                print(f"warning: {file}: no file for `mod {name};`", file=sys.stderr)
        return mod

    root = load(("crate",), src / "lib.rs", None)

    def walk(m: Module) -> None:
        modules.append(m)
        for c in m.children.values():
            walk(c)

    walk(root)
    return root, modules


# ---------------------------------------------------------------------------------------------
# Name resolution: a path → (file defining the item) or a module.


class Resolver:
    def __init__(self, root: Module):
        self.root = root
        self.cache: dict[tuple[int, str], object] = {}

    def start(self, mod: Module, first: str) -> Module | None:
        if first in ("crate", "$crate"):
            return self.root
        if first == "self":
            return mod
        if first == "super":
            return mod.parent
        return None

    def resolve(self, mod: Module, segs: list[str], seen=None) -> object:
        """Resolve `segs` seen from `mod`. Returns a Module, a Path (file defining an item) or
        None (external crate, std, or not found)."""
        if not segs or segs[0] == "::":
            return None
        seen = seen or set()
        cur: object = self.start(mod, segs[0])
        rest = segs[1:]
        if cur is None:
            cur = self.lookup(mod, segs[0], seen)
        while cur is not None and rest:
            s = rest[0]
            if isinstance(cur, Path):  # associated item / enum variant of a type
                return cur
            if s in ("super",):
                cur = cur.parent
            elif s == "self":
                pass
            else:
                cur = self.lookup(cur, s, seen)
            rest = rest[1:]
        return cur

    def lookup(self, mod: Module, name: str, seen: set) -> object:
        """The meaning of `name` in module `mod`: a Module or the file defining the item."""
        key = (id(mod), name)
        if key in self.cache:
            return self.cache[key]
        if key in seen:
            return None
        seen = seen | {key}
        res: object = None
        if name in mod.items:
            res = mod.file
        elif name in mod.children:
            res = mod.children[name]
        else:
            for u in mod.uses:
                if u.alias == name:
                    res = self.resolve(mod, u.segments, seen)
                    if res is not None:
                        break
            if res is None:
                for u in mod.uses:
                    if u.segments[-1] == "*":
                        target = self.resolve(mod, u.segments[:-1], seen)
                        if isinstance(target, Module):
                            r = self.lookup(target, name, seen)
                            if r is not None:
                                res = r
                                break
        self.cache[key] = res
        return res

    def glob_names(self, mod: Module) -> set[str]:
        names = set(mod.items) | set(mod.children)
        names |= {u.alias for u in mod.uses if u.alias}
        return names


# ---------------------------------------------------------------------------------------------
# Edges.


@dataclass(frozen=True)
class Edge:
    src: Path
    dst: Path
    line: int
    what: str  # e.g. "use super::kkt::Kkt" or "crate::mpc::closed_loop::percentile"


def code_paths(toks: list[Tok]):
    """Paths in code: (segments, line) for every maximal `a::b::c` sequence."""
    i, n = 0, len(toks)
    while i < n:
        t = toks[i].text
        if (
            _IDENT.fullmatch(t)
            and i + 2 < n
            and toks[i + 1].text == "::"
            and (i == 0 or toks[i - 1].text != "::")
        ):
            segs = [t]
            if i > 0 and toks[i - 1].text == "$" and t == "crate":
                segs = ["$crate"]
            line = toks[i].line
            j = i + 1
            while j + 1 < n and toks[j].text == "::" and _IDENT.fullmatch(toks[j + 1].text):
                segs.append(toks[j + 1].text)
                j += 2
            yield segs, line
            i = j
        else:
            i += 1


def build_edges(root: Module, modules: list[Module], src_lines: dict) -> list[Edge]:
    r = Resolver(root)
    edges: list[Edge] = []

    def add(mod: Module, target: object, line: int, what: str) -> None:
        if isinstance(target, Path) and target != mod.file:
            edges.append(Edge(mod.file, target, line, what))

    for mod in modules:
        used_names = {t.text for t in mod.code if _IDENT.fullmatch(t.text)}
        for u in mod.uses:
            if u.segments[-1] == "*":
                target = r.resolve(mod, u.segments[:-1])
                if isinstance(target, Module):
                    for name in sorted(r.glob_names(target) & used_names):
                        add(mod, r.lookup(target, name, set()), u.line,
                            "use " + "::".join(u.segments[:-1] + [name]) + " (glob)")
                continue
            if u.public and u.alias not in used_names:
                continue  # a re-export only
            target = r.resolve(mod, u.segments)
            add(mod, target, u.line, "use " + "::".join(u.segments))
        for segs, line in code_paths(mod.code):
            first = segs[0]
            if first not in ("crate", "$crate", "super", "self"):
                # through a module in scope (child module or imported module)
                m = r.lookup(mod, first, set())
                if not isinstance(m, Module):
                    continue
            target = r.resolve(mod, segs)
            if isinstance(target, Module):
                continue
            # the longest prefix that names an item
            add(mod, target, line, "::".join(segs).replace("$crate", "crate"))
    return edges


# ---------------------------------------------------------------------------------------------
# Strongly connected components and circles.


def sccs(nodes, succ):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        # iterative Tarjan
        work = [(v, iter(sorted(succ.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(start, comp, succ):
    """A shortest circle start → … → start inside comp (list of nodes, start first)."""
    comp = set(comp)
    prev = {start: None}
    q = collections.deque([start])
    while q:
        v = q.popleft()
        for w in sorted(succ.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path))
            if w in comp and w not in prev:
                prev[w] = v
                q.append(w)
    return [start]


def report(title, comps, succ, edge_lines, show):
    bad = [c for c in comps if len(c) > 1]
    for c in bad:
        print(f"\n{title}: circle among {len(c)}: " + ", ".join(show(x) for x in c))
        cyc = shortest_cycle(c[0], c, succ)
        print("  shortest circle: " + " -> ".join(show(x) for x in cyc + [cyc[0]]))
        for a, b in zip(cyc, cyc[1:] + cyc[:1]):
            for line in edge_lines[(a, b)][:3]:
                print(f"    {line}")
            if len(edge_lines[(a, b)]) > 3:
                print(f"    … {len(edge_lines[(a, b)]) - 3} more {show(a)} -> {show(b)}")
        on_cycle = set(zip(cyc, cyc[1:] + cyc[:1]))
        others = [
            (a, b) for a in c for b in sorted(succ.get(a, ())) if b in c and (a, b) not in on_cycle
        ]
        if others:
            print("  other edges inside the component:")
            for a, b in others:
                print(f"    {edge_lines[(a, b)][0]}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "src"))
    ap.add_argument("--edges", action="store_true", help="print the whole file graph")
    ap.add_argument("--no-tests", action="store_true", help="leave out #[cfg(test)] modules")
    args = ap.parse_args()
    src = Path(args.src)
    root, modules = load_crate(src, args.no_tests)
    files = sorted({m.file for m in modules})
    src_lines = {f: f.read_text(encoding="utf-8").splitlines() for f in files}
    edges = build_edges(root, modules, src_lines)

    def rel(f: Path) -> str:
        return str(f.relative_to(src))

    def top(f: Path) -> str:
        parts = f.relative_to(src).parts
        if len(parts) == 1:
            return parts[0].removesuffix(".rs")
        return parts[0]

    succ: dict = collections.defaultdict(set)
    lines: dict = collections.defaultdict(list)
    msucc: dict = collections.defaultdict(set)
    mlines: dict = collections.defaultdict(list)
    def statement(f: Path, line: int) -> str:
        """The source text from `line` to the end of its statement (a `use` spanning several
        lines joined into one), at most 140 characters."""
        ls = src_lines[f]
        text = ls[line - 1].strip()
        k = line
        while text.startswith(("use ", "pub use ", "pub(crate) use ", "pub(super) use ")) and (
            not text.endswith(";") and k < len(ls) and len(text) < 140
        ):
            text += " " + ls[k].strip()
            k += 1
        if k > line:
            text = text.replace("{ ", "{").replace(", }", "}")
        return text if len(text) <= 140 else text[:139] + "…"

    # one description per importing line: the statement, and the resolved paths it does not
    # show (a name cut off, a glob, a path in code)
    by_line: dict = collections.defaultdict(list)
    for e in edges:
        if e.what not in by_line[(e.src, e.dst, e.line)]:
            by_line[(e.src, e.dst, e.line)].append(e.what)
    for (src_f, dst_f, line), whats in sorted(by_line.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        text = statement(src_f, line)
        hidden = [
            w
            for w in whats
            if w.endswith("(glob)")
            or not re.search(rf"\b{re.escape(w.split('::')[-1])}\b", text)
        ]
        desc = f"{rel(src_f)}:{line}: {text}"
        if hidden:
            desc += "  [" + ", ".join(hidden) + "]"
        lines[(src_f, dst_f)].append(desc)
        succ[src_f].add(dst_f)
        a, b = top(src_f), top(dst_f)
        if a != b:
            msucc[a].add(b)
            mlines[(a, b)].append(desc + f"  (-> {rel(dst_f)})")

    if args.edges:
        for (a, b), ls in sorted(lines.items()):
            print(f"{rel(a)} -> {rel(b)}")
            for line in ls:
                print(f"    {line}")

    bad = report("files", sccs(files, succ), succ, lines, rel)
    tops = sorted({top(f) for f in files})
    mbad = report("top-level modules", sccs(tops, msucc), msucc, mlines, lambda x: x)
    n_edges = sum(len(v) for v in succ.values())
    print(
        f"\n{len(files)} files, {n_edges} file dependencies: "
        f"{len(bad)} circle(s) between files, {len(mbad)} between top-level modules"
    )
    if not bad and not mbad:
        order = []
        done: set = set()

        def visit(m):
            if m in done:
                return
            done.add(m)
            for d in sorted(msucc.get(m, ())):
                visit(d)
            order.append(m)

        for m in tops:
            visit(m)
        print("top-level modules, lowest layer first: " + ", ".join(order))
    return 1 if bad or mbad else 0


if __name__ == "__main__":
    sys.exit(main())
