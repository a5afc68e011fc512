"""pagelib.py -- what the checkers of gpuflame's HTML page share (tests/gen/page_check.py,
tests/gen/timeline_check.py): the page's embedded JSON, read from the file as a browser
would find it, and PASS/FAIL lines with a count of failures."""
import json, re


def page_data(path):
    """The value of the page's one <script type="application/json" id="gf-data"> block."""
    s = open(path, encoding='utf-8').read()
    m = re.search(r'<script type="application/json" id="gf-data">(.*?)</script>', s, re.S)
    return json.loads(m.group(1)) if m else None


class Checks:
    """ok(name, cond, why) prints PASS name or FAIL name: why; bad counts the failures."""
    def __init__(self):
        self.bad = 0

    def ok(self, name, cond, why=''):
        print(('PASS %s' % name) if cond else ('FAIL %s: %s' % (name, why)))
        self.bad += 0 if cond else 1
