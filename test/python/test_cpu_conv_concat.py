"""Concatenations and channel slices of convolutions' results on the CPU (NHWC
through kiln-channels-last, oneDNN convolutions writing their parts), checked
against PyTorch: with and without an activation between a convolution and the
concatenation, a slice of a concatenation, odd channel counts."""
import torch

import kiln


class Fire(torch.nn.Module):
    """squeeze -> ReLU -> (1x1 | 3x3) -> ReLU -> cat -> max pool -> conv."""

    def __init__(self, c, s, e1, e3):
        super().__init__()
        self.squeeze = torch.nn.Conv2d(c, s, 1)
        self.e1 = torch.nn.Conv2d(s, e1, 1)
        self.e3 = torch.nn.Conv2d(s, e3, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(3, 2, ceil_mode=True)
        self.out = torch.nn.Conv2d(e1 + e3, 8, 1)

    def forward(self, x):
        s = torch.relu(self.squeeze(x))
        y = torch.cat([torch.relu(self.e1(s)), torch.relu(self.e3(s))], 1)
        return self.out(self.pool(y))


class Dense(torch.nn.Module):
    """Convolutions concatenated with no activation between (a dense block),
    the input among the parts, then a channel split of the concatenation."""

    def __init__(self, c):
        super().__init__()
        self.a = torch.nn.Conv2d(c, 12, 3, padding=1, bias=False)
        self.b = torch.nn.Conv2d(c + 12, 20, 1)
        self.c = torch.nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x):
        y = torch.cat([x, self.a(x)], 1)
        y = torch.cat([y, self.b(y)], 1)
        lo, hi = torch.split(y, [y.shape[1] - 16, 16], 1)
        return torch.sigmoid(self.c(hi)) * lo.mean(1, keepdim=True)


class Branches(torch.nn.Module):
    """Convolutions concatenated straight from their biased outputs (each
    writes its part of the NHWC concatenation through a staged buffer)."""

    def __init__(self, c):
        super().__init__()
        self.a = torch.nn.Conv2d(c, 10, 1)
        self.b = torch.nn.Conv2d(c, 6, 3, padding=1)
        self.c = torch.nn.Conv2d(c, 4, 3, padding=2, dilation=2, bias=False)
        self.out = torch.nn.Conv2d(20, 8, 1)

    def forward(self, x):
        return self.out(torch.cat([self.a(x), self.b(x), self.c(x)], 1))


def check(model, x):
    torch.manual_seed(0)
    model = model.eval()
    with torch.no_grad():
        expected = model(x)
        got = kiln.compile(model, example_inputs=(x,))(x)
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)


def test_fire_module_concat_after_relu():
    torch.manual_seed(0)
    check(Fire(24, 16, 32, 32), torch.randn(2, 24, 19, 19))
    check(Fire(7, 5, 9, 13), torch.randn(1, 7, 11, 15))


def test_dense_concat_without_activation_and_split():
    torch.manual_seed(0)
    check(Dense(8), torch.randn(2, 8, 14, 14))
    check(Dense(5), torch.randn(1, 5, 9, 7))


def test_concat_of_biased_convolutions():
    torch.manual_seed(0)
    check(Branches(32), torch.randn(2, 32, 28, 28))
    check(Branches(3), torch.randn(1, 3, 17, 9))
