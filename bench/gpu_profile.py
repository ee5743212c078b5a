"""Where a kiln model's GPU time goes: one run of a bench/gpu_models.py config,
kernel by kernel under Nsight Compute (gpu__time_duration), summed by kernel name.
  python3 PACK/gpu_profile.py CONFIG OUT_DIR   (in PACK, made by bench/pack_gpu.sh)
Writes OUT_DIR/CONFIG.ncu.csv and prints the 20 costliest kernels.
"""
import os, subprocess, sys, numpy as np, gpu_models, csv, io, collections
name = sys.argv[1]; out = os.path.abspath(sys.argv[2])
os.chdir(os.path.dirname(os.path.abspath(__file__)))
m, inputs = gpu_models.build(name)
d = f"/tmp/{name}"; os.makedirs(d, exist_ok=True)
gpu_models.export(m, inputs, f"{d}/w.pt2")
ins = []
for k, x in enumerate(inputs):
    p = f"{d}/in{k}.npy"; np.save(p, (x.float() if x.is_floating_point() else x).numpy()); ins += ["--input", p]
env = gpu_models.cudnn_env(dict(os.environ, LD_LIBRARY_PATH="lib"))
cmd = ["ncu", "--csv", "--metrics", "gpu__time_duration.sum", "./bin/kiln-run", f"{name}/model.so", "--device", "cuda",
       "--weights", f"{d}/w.pt2", *ins, "--no-cuda-graphs"]
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
open(f"{out}/{name}.ncu.csv", "w").write(p.stdout)
lines = [l for l in p.stdout.splitlines() if l.startswith('"')]
rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
tot = collections.defaultdict(float); cnt = collections.Counter(); grid = {}
scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}
for r in rows:
    k = r["Kernel Name"][:60]; v = float(r["Metric Value"].replace(",", "")) * scale.get(r["Metric Unit"], 1e-3)
    tot[k] += v; cnt[k] += 1; grid[k] = (r.get("Grid Size"), r.get("Block Size"))
print(name, "kernels", len(rows), "total us", round(sum(tot.values()), 1))
for k, v in sorted(tot.items(), key=lambda kv: -kv[1])[:20]:
    print(f"{v:10.1f} us  x{cnt[k]:3d}  {k}  grid {grid[k][0]} block {grid[k][1]}")
