#!/usr/bin/env python3
"""gen_proto_page.py -- a Kineto trace whose names are the properties every plain
JavaScript object inherits (issue 22: a page keying plain objects by name threw
"fam.top is not iterable" on hovering a frame named toString), in every name slot.

usage: gen_proto_page.py IN.json.gz OUT.json OFFSET
From the shipped decode trace: the distinct names of each slot -- Python frames,
cpu ops, user annotations, kernels (each its own family), thread and process
names -- become the twelve names below, round robin from OFFSET (so two offsets
put every name in every slot), and the step marker ProfilerStep#N becomes
valueOf#N (the page is made with --step-marker valueOf). Runtime, driver,
memcpy and memset names are kept: they carry the launch and sync semantics.
"""
import gzip, json, sys

PROTO = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf',
         'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__defineSetter__',
         '__lookupGetter__', '__lookupSetter__']
src, out, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(gzip.open(src, 'rt', encoding='utf-8'))
ev = d['traceEvents']
slots = {'python_function': [], 'cpu_op': [], 'user_annotation': [], 'kernel': [], 'thread_name': [], 'process_name': []}
for e in ev:
    cat, name = e.get('cat'), e.get('name')
    if e.get('ph') == 'M' and name in ('thread_name', 'process_name'):
        slots[name].append(e['args']['name'])
    elif cat in slots and not str(name).startswith('ProfilerStep#'):
        slots[cat].append(name)
rename = {}
for cat, names in slots.items():
    for j, n in enumerate(sorted(set(names))):
        rename[(cat, n)] = PROTO[(j + off) % len(PROTO)]
for e in ev:
    cat, name = e.get('cat'), e.get('name')
    if isinstance(name, str) and name.startswith('ProfilerStep#'):
        e['name'] = 'valueOf#' + name.split('#', 1)[1]
    elif e.get('ph') == 'M' and name in ('thread_name', 'process_name'):
        e['args']['name'] = rename[(name, e['args']['name'])]
    elif (cat, name) in rename:
        e['name'] = rename[(cat, name)]
json.dump(d, open(out, 'w', encoding='utf-8'))
