# Ablation: turn the __local kernel arguments of r18.cl / r19.cl into static __local arrays
# sized by the macros (the probe then passes LOCALBYTES 0 0).  python3 mkstatic.py IN OUT
import re, sys
s = open(sys.argv[1]).read()
s, n = re.subn(r'__global float\* C,\s*__local float4\* AwrkT,[^\n]*\n\s*__local float4\* Bwrk\)[^\n]*\n\{',
               '__global float* C)\n{\n    __local float4 AwrkT[TSK * AK / 4], Bwrk[TSK * TSN / 4];', s)
assert n == 1
open(sys.argv[2], 'w').write(s)
