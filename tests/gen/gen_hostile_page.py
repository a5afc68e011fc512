#!/usr/bin/env python3
"""gen_hostile_page.py -- a Kineto trace whose frame, kernel and thread names are hostile
to an HTML page: made from the shipped decode trace (examples/decode-sync.json.gz) by
renaming some of its names, the JSON kept valid except for deliberately invalid UTF-8.

usage: gen_hostile_page.py IN.json.gz OUT.json
Names written (the browser test checks none becomes markup or script):
  aten::linear            -> </script><script>alert(1)</script>
  the gemm kernel         -> <img src=x onerror=alert(2)>gemm
  engine.py(240): step    -> engine"'&<b>step</b> U+2028 U+2029 (the reader refuses invalid UTF-8 in a trace: the diff page of folded files carries it)
  thread name python3     -> <svg onload=alert(3)>
  aten::mm                -> <!--  ]]> --> <iframe srcdoc=x>
"""
import gzip, sys

src, out = sys.argv[1], sys.argv[2]
data = gzip.open(src, 'rb').read()
swaps = [
    (b'"aten::linear"', b'"</script><script>alert(1)</script>"'),
    (b'"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"',
     b'"<img src=x onerror=alert(2)>gemm"'),
    (b'"engine.py(240): step"', b'"engine\\"\'&<b>step</b> \\u2028\xe2\x80\xa9 end"'),
    (b'"python3"', b'"<svg onload=alert(3)>"'),
    (b'"aten::mm"', b'"<!--  ]]> --> <iframe srcdoc=x>"'),
]
for a, b in swaps:
    if a not in data:
        sys.exit('gen_hostile_page.py: %r not in %s' % (a, src))
    data = data.replace(a, b)
open(out, 'wb').write(data)
