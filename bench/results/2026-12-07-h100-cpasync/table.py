import sys,re,collections
# Call tables for NOTES.md: each variant's GFLOPS against the baseline of the same N, both halves.
# usage: python3 table.py HALF1 HALF2 N:BASELINE,N:BASELINE,... [PROBE]  (PROBE: registers of the
# variants the canary built first)
h=[{},{}]
regs={}
for i,f in enumerate(sys.argv[1:3]):
    for line in open(f):
        p=line.split()
        if len(p)>=8 and p[0].isdigit() and p[5]=='ok':
            h[i][(int(p[0]),p[1])]=float(p[2])
            if p[6]!='?': regs[p[1]]=p[6]
        if line.startswith('# built'):
            q=line.split()
            if q[6]!="?": regs[q[2]]=q[6]
for line in (open(sys.argv[4]) if len(sys.argv) > 4 else []):
    p=line.split()
    if len(p)>=8 and p[0].isdigit() and p[6]!='?': regs.setdefault(p[1].replace('-f','-f'),p[6])
base=dict((int(a),b) for a,b in (x.split(':') for x in sys.argv[3].split(',')))
Ns=sorted(set(n for n,_ in h[0]))
labels=[]
for n,l in h[0]:
    if l not in labels: labels.append(l)
print("| variant | regs | " + " | ".join(str(n) for n in Ns) + " |")
print("|---|---:|" + "---:|"*len(Ns))
for l in labels:
    cells=[]
    for n in Ns:
        if (n,l) not in h[0]: cells.append("-"); continue
        b=base.get(n)
        if l==b: cells.append(f"**{h[0][(n,l)]:,.0f} / {h[1][(n,l)]:,.0f}**")
        else:
            r=[100*(h[i][(n,l)]/h[i][(n,b)]-1) for i in (0,1)]
            cells.append(f"{r[0]:+.1f} / {r[1]:+.1f}")
    print(f"| {l} | {regs.get(l,'?')} | " + " | ".join(cells) + " |")
