# Makes the 1-D, 2-D and transposed convolution case (torch from PyPI): strided,
# padded, grouped and dilated conv1d / conv_transpose1d / conv2d /
# conv_transpose2d with output padding, saved in the default IR (conv1d,
# conv_transpose1d, conv_transpose2d.input nodes) and in Core ATen IR (all
# aten.convolution), with the inputs and PyTorch's outputs. Run from this folder:
#   python3 export.py
import numpy as np, torch


class Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2)
        self.t1 = torch.nn.ConvTranspose1d(6, 4, 4, stride=2, padding=1, output_padding=1)
        self.c2 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.t2 = torch.nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.t3 = torch.nn.ConvTranspose2d(6, 2, 2, stride=2, dilation=2, bias=False)

    def forward(self, x, y):
        return self.t1(self.c1(x)), self.t3(self.t2(self.c2(y)))


torch.manual_seed(0)
m = Convs().eval()
x, y = torch.randn(2, 4, 17), torch.randn(2, 3, 9, 11)
ep = torch.export.export(m, (x, y))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", x.numpy())
np.save("input1.npy", y.numpy())
with torch.no_grad():
    for i, o in enumerate(m(x, y)):
        np.save(f"output{i}.npy", o.numpy())
