# Makes the case of the antialiased resampling ops (F.interpolate(..., antialias=True):
# aten._upsample_bicubic2d_aa and _upsample_bilinear2d_aa), OpInfo-style: both modes,
# downscaling by whole and fractional factors, upscaling, one dim kept, align_corners
# both ways, an output size or scale factors (which ATen's source rule then uses), a
# float64 input; saved in the default IR (.vec overloads) and in Core ATen IR (the
# default overloads) with the inputs and PyTorch's outputs; and a model with a symbolic
# height and width (dyn.pt2) with two input sizes. Run from this folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F

# (mode, size, scale_factor, align_corners) of each output.
CASES = [
    ("bicubic", (7, 5), None, False),     # 16x12 down to 7x5: fractional factors
    ("bicubic", (8, 6), None, True),      # whole factor 2, align_corners
    ("bicubic", (23, 31), None, False),   # upscaling (support not widened)
    ("bicubic", None, (0.37, 0.6), False),  # scale factors, used as 1/scale
    ("bicubic", None, (0.5, 1.0), True),  # the width kept: the height pass only
    ("bicubic", (16, 5), None, False),    # the height kept: the width pass only
    ("bilinear", (5, 11), None, False),
    ("bilinear", None, (0.6, 0.45), True),
    ("bilinear", (40, 30), None, False),  # upscaling by 2.5
    ("bilinear", (3, 2), None, True),
]


class Resize(torch.nn.Module):
    def forward(self, x, d):
        outs = [F.interpolate(x, size=s, scale_factor=f, mode=m, align_corners=a, antialias=True)
                for m, s, f, a in CASES]
        outs.append(F.interpolate(d, size=(5, 7), mode="bicubic", antialias=True))
        return tuple(outs)


torch.manual_seed(0)
x = torch.randn(2, 3, 16, 12)
d = torch.randn(1, 2, 13, 17, dtype=torch.float64)
model = Resize()
ep = torch.export.export(model, (x, d))
ops = {str(n.target) for n in ep.graph.nodes}
assert any("_upsample_bicubic2d_aa.vec" in o for o in ops) and any("_upsample_bilinear2d_aa.vec" in o for o in ops), ops
torch.export.save(ep, "model.pt2")
core = ep.run_decompositions()
assert any("_upsample_bicubic2d_aa.default" in str(n.target) for n in core.graph.nodes)
torch.export.save(core, "model.core.pt2")
np.save("input0.npy", x.numpy())
np.save("input1.npy", d.numpy())
with torch.no_grad():
    outs = model(x, d)
for i, o in enumerate(outs):
    np.save(f"output{i}.npy", o.numpy())
print(len(outs), "outputs:", [tuple(o.shape) for o in outs])


class Dyn(torch.nn.Module):
    """A resize to a fixed size from any height and width (a position-embedding grid)."""

    def forward(self, x):
        return F.interpolate(x, size=(6, 9), mode="bicubic", antialias=True) + \
            F.interpolate(x, size=(6, 9), mode="bilinear", antialias=True, align_corners=True)


h, w = torch.export.Dim("h", min=2, max=40), torch.export.Dim("w", min=2, max=40)
y = torch.randn(1, 4, 14, 20)
ep = torch.export.export(Dyn(), (y,), dynamic_shapes=({2: h, 3: w},))
torch.export.save(ep, "dyn.pt2")
for k, shape in enumerate([(1, 4, 14, 20), (1, 4, 30, 7)]):
    t = y if k == 0 else torch.randn(*shape)
    np.save(f"dyn_input{k}.npy", t.numpy())
    np.save(f"dyn_output{k}.npy", Dyn()(t).numpy())
