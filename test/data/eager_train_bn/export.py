# Makes the training-mode batch norm case (torch from PyPI): a BatchNorm2d that
# tracks running statistics (the graph writes its buffers: add_ on
# num_batches_tracked in the default IR, buffer-mutation outputs of
# _native_batch_norm_legit_functional in Core ATen IR) and one that does not
# (_native_batch_norm_legit.no_stats), saved in both IRs with the input and
# PyTorch's outputs of two calls (the running statistics change in between).
# Run from this folder:  python3 export.py
import numpy as np, torch


class TrainBN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tracked = torch.nn.BatchNorm2d(3)
        self.batch_only = torch.nn.BatchNorm2d(3, track_running_stats=False)

    def forward(self, x):
        y = self.tracked(x)
        return y * 2 + self.batch_only(x), self.tracked.running_mean * 1


torch.manual_seed(0)
m = TrainBN().train()
x = torch.randn(4, 3, 5, 6)
ep = torch.export.export(m, (x,))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", x.numpy())
ref = TrainBN().train()
ref.load_state_dict(m.state_dict())
with torch.no_grad():
    for call in (1, 2):
        for k, o in enumerate(ref(x)):
            np.save(f"call{call}_output{k}.npy", o.numpy())
