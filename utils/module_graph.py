#!/usr/bin/env python3
"""The module graph of one libcommon folder: its circles and its floors.

A module is a file stem of the folder (X.h, X.cpp and X.inc are module X). Module A uses
module B when a file of A includes a header of B ("include" edges), or when A's object file
needs a symbol that B's object file defines ("link" edges: a header that declares functions
another file defines is tied to that file through the objects that call them). The script prints
the edge counts, every circle (a strongly connected set of more than one module) and the floors:
floor 0 uses no other module of the folder, floor n uses modules of floors below n only (a
circle sits on one floor as one unit).

  utils/module_graph.py SOURCE_DIR OBJECT_DIR [--folder emu]

OBJECT_DIR holds the folder's object files as CMake names them (X.cpp.o), for instance
build/libcommon/emu/CMakeFiles/asmevo_emu.dir. Object files with no source in SOURCE_DIR (left
by a renamed file) are ignored. Exit 0, or 2 on a bad argument.
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def modules_of(folder_dir):
    mods = collections.defaultdict(list)
    for name in sorted(os.listdir(folder_dir)):
        stem, ext = os.path.splitext(name)
        if ext in ('.h', '.cpp', '.inc'):
            mods[stem].append(name)
    return mods


def include_edges(folder, folder_dir, mods):
    edges = collections.defaultdict(set)
    pattern = re.compile(r'#include "' + re.escape(folder) + r'/([^"]+)"')
    for stem, files in mods.items():
        for name in files:
            with open(os.path.join(folder_dir, name), encoding='utf-8') as f:
                for line in f:
                    m = pattern.match(line)
                    if m:
                        target = os.path.splitext(m.group(1))[0]
                        if target != stem and target in mods:
                            edges[stem].add(target)
    return edges


def nm(args, path):
    out = subprocess.run(['nm'] + args + [path], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def link_edges(object_dir, mods):
    defined, needed = {}, collections.defaultdict(set)
    for name in sorted(os.listdir(object_dir)):
        if not name.endswith('.cpp.o'):
            continue
        stem = name[:-len('.cpp.o')]
        if stem not in mods or stem + '.cpp' not in mods[stem]:
            continue
        path = os.path.join(object_dir, name)
        for line in nm(['--defined-only'], path):
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDRBW':
                defined[parts[2]] = stem
        for line in nm(['--undefined-only'], path):
            needed[stem].add(line.split()[-1])
    edges = collections.defaultdict(set)
    for stem, symbols in needed.items():
        for symbol in symbols:
            owner = defined.get(symbol)
            if owner is not None and owner != stem:
                edges[stem].add(owner)
    return edges


def strongly_connected(nodes, edges):
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            result.append(sorted(component))

    sys.setrecursionlimit(max(1000, 10 * len(nodes)))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return result


def floors_of(components, edges):
    component_of = {m: i for i, c in enumerate(components) for m in c}
    floor = {}

    def level(i):
        if i not in floor:
            uses = {component_of[w] for m in components[i] for w in edges.get(m, ())}
            uses.discard(i)
            floor[i] = 1 + max((level(j) for j in uses), default=-1)
        return floor[i]

    for i in range(len(components)):
        level(i)
    return floor


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('source_dir')
    parser.add_argument('object_dir')
    parser.add_argument('--folder', default='emu')
    args = parser.parse_args()
    folder_dir = os.path.join(args.source_dir, 'libcommon', args.folder)
    if not os.path.isdir(folder_dir) or not os.path.isdir(args.object_dir):
        print(f'module_graph: no {folder_dir} or no {args.object_dir}', file=sys.stderr)
        return 2
    mods = modules_of(folder_dir)
    inc = include_edges(args.folder, folder_dir, mods)
    link = link_edges(args.object_dir, mods)
    edges = {m: inc[m] | link[m] for m in mods}
    components = strongly_connected(mods, edges)
    circles = [c for c in components if len(c) > 1]
    floor = floors_of(components, edges)
    print(f'{args.folder}: {len(mods)} modules, {sum(len(e) for e in inc.values())} include '
          f'edges, {sum(len(link[m] - inc[m]) for m in mods)} further link edges')
    print(f'circles: {len(circles)}' + ''.join(f'\n  {" <-> ".join(c)}' for c in circles))
    by_floor = collections.defaultdict(list)
    for i, c in enumerate(components):
        by_floor[floor[i]].append('+'.join(c))
    print(f'floors: {len(by_floor)}')
    for f in sorted(by_floor):
        print(f'  {f}: {" ".join(sorted(by_floor[f]))}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
