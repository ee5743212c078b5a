# Makes the recurrent-layer case (torch from PyPI): a 2-layer bidirectional
# batch_first LSTM without biases, a GRU with given h0, and a bidirectional
# ReLU RNN, in the default IR (lstm.input / gru.input / rnn_relu.input nodes)
# with the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class Rnns(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 6, num_layers=2, bidirectional=True, batch_first=True, bias=False)
        self.gru = torch.nn.GRU(5, 4, num_layers=2)
        self.rnn = torch.nn.RNN(5, 3, nonlinearity="relu", bidirectional=True)

    def forward(self, x, h0):
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(x.transpose(0, 1), h0)
        w, hr = self.rnn(x.transpose(0, 1))
        return y, h, c, z, hg, w, hr


torch.manual_seed(0)
m = Rnns().eval()
x, h0 = torch.randn(3, 7, 5), torch.randn(2, 3, 4)
ep = torch.export.export(m, (x, h0))
torch.export.save(ep, "model.pt2")
np.save("input0.npy", x.numpy())
np.save("input1.npy", h0.numpy())
with torch.no_grad():
    for k, o in enumerate(m(x, h0)):
        np.save(f"output{k}.npy", o.numpy())
