"""The model zoo's vision, recurrent, mixture-of-experts and diffusion models (export_zoo.py).

Each entry is a Spec: a constructor (seeded by the caller), the inputs at batch B,
and what the test asks of it. Small configs: tiny widths and depths, 32x32 or
64x64 images, random weights, nothing downloaded.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.models.resnet import BasicBlock, Bottleneck

from zoo_spec import Spec


def image(c=3, hw=64):
    return lambda g, b: (torch.randn(b, c, hw, hw, generator=g),)


class TinyResNet(nn.Module):
    """ResNet from torchvision blocks: BasicBlock or grouped Bottleneck (ResNeXt) stages."""

    def __init__(self, block=BasicBlock, widths=(16, 32, 64), groups=1, base_width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 16
        for i, planes in enumerate(widths):
            stride = 1 if i == 0 else 2
            cout = planes * block.expansion
            down = None
            if stride != 1 or cin != cout:
                down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            extra = {} if block is BasicBlock else {"groups": groups, "base_width": base_width}
            layers.append(block(cin, planes, stride, down, **extra))
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class GoogLeNetBlocks(nn.Module):
    """Two torchvision GoogLeNet Inception modules (1x1/3x3/5x5/pool branches, ceil-mode pooling)."""

    def __init__(self):
        super().__init__()
        from torchvision.models.googlenet import BasicConv2d, Inception
        self.stem = BasicConv2d(3, 16, kernel_size=3, stride=2, padding=1)
        self.a = Inception(16, 8, 8, 16, 4, 8, 8)
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.b = Inception(40, 16, 8, 16, 4, 8, 8)
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        x = self.b(self.pool(self.a(self.stem(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class InceptionV3Blocks(nn.Module):
    """torchvision Inception-v3 modules B (grid reduction), A and C (factorized 1x7 / 7x1 convolutions)."""

    def __init__(self):
        super().__init__()
        from torchvision.models.inception import BasicConv2d, InceptionA, InceptionB, InceptionC
        self.stem = BasicConv2d(3, 16, kernel_size=3, stride=2)
        self.b = InceptionB(16)                         # 496 channels, stride 2
        self.a = InceptionA(496, pool_features=8)       # 232 channels
        self.c = InceptionC(232, channels_7x7=16)       # 768 channels
        self.fc = nn.Linear(768, 10)

    def forward(self, x):
        x = self.c(self.a(self.b(self.stem(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def small_backbone(cout=64):
    def cbr(i, o, s, d=1):
        return [nn.Conv2d(i, o, 3, s, d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
    return nn.Sequential(*cbr(3, 16, 2), *cbr(16, 32, 2), *cbr(32, cout, 2), *cbr(cout, cout, 1, 2))


class FCN(nn.Module):
    """torchvision's FCNHead on a dilated conv backbone, bilinear upsampling to the input size."""

    def __init__(self):
        super().__init__()
        from torchvision.models.segmentation.fcn import FCNHead
        self.backbone = small_backbone()
        self.head = FCNHead(64, 4)

    def forward(self, x):
        return F.interpolate(self.head(self.backbone(x)), size=x.shape[-2:], mode="bilinear",
                             align_corners=False)


class DeepLabV3(nn.Module):
    """torchvision's ASPP (atrous rates 2/4/6, image pooling branch) + DeepLab head, bilinear upsampling."""

    def __init__(self):
        super().__init__()
        from torchvision.models.segmentation.deeplabv3 import ASPP
        self.backbone = small_backbone()
        self.head = nn.Sequential(ASPP(64, [2, 4, 6], 32), nn.Conv2d(32, 32, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 4, 1))

    def forward(self, x):
        return F.interpolate(self.head(self.backbone(x)), size=x.shape[-2:], mode="bilinear",
                             align_corners=False)


class LRASPPSmall(nn.Module):
    """torchvision's LR-ASPP segmentation head on a MobileNetV3-Small (0.5x) backbone."""

    def __init__(self):
        super().__init__()
        from torchvision.models._utils import IntermediateLayerGetter
        from torchvision.models.segmentation.lraspp import LRASPPHead
        backbone = torchvision.models.mobilenet_v3_small(width_mult=0.5).features
        stage = [0] + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)] + [len(backbone) - 1]
        low, high = stage[-4], stage[-1]
        self.backbone = IntermediateLayerGetter(backbone, {str(low): "low", str(high): "high"})
        self.head = LRASPPHead(backbone[low].out_channels, backbone[high].out_channels, 4, 32)

    def forward(self, x):
        return F.interpolate(self.head(self.backbone(x)), size=x.shape[-2:], mode="bilinear",
                             align_corners=False)


class UNet(nn.Module):
    """Three-level UNet: strided conv and max-pool down, ConvTranspose2d and bilinear upsampling up, skip cats."""

    def __init__(self, c=8):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.e1, self.e2, self.e3 = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.down1 = nn.Conv2d(c, c, 2, stride=2)
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.d2, self.d1 = block(4 * c, 2 * c), block(3 * c, c)
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        s1 = self.e1(x)
        s2 = self.e2(self.down1(s1))
        b = self.e3(F.max_pool2d(s2, 2))
        u2 = self.d2(torch.cat([self.up2(b), s2], 1))
        u1 = F.interpolate(u2, scale_factor=2, mode="bilinear", align_corners=False)
        return torch.sigmoid(self.head(self.d1(torch.cat([u1, s1], 1))))


class Recurrent(nn.Module):
    """A 2-layer bidirectional LSTM or GRU (batch first) with a linear head; returns the
    sequence output, the head and the final states."""

    def __init__(self, kind):
        super().__init__()
        self.rnn = getattr(nn, kind)(16, 24, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(48, 8)

    def forward(self, x):
        y, h = self.rnn(x)
        states = h if isinstance(h, tuple) else (h,)
        return (y, self.head(y[:, -1]), *states)


class MoE(nn.Module):
    """A mixture-of-experts layer: softmax router, top-2 routing renormalized, the gates
    scattered into a dense [tokens, experts] table, each expert a SiLU-gated MLP, and
    the top expert's index gathered to pick a per-token bias."""

    def __init__(self, d=32, experts=4, hidden=48, k=2):
        super().__init__()
        self.k = k
        self.router = nn.Linear(d, experts, bias=False)
        self.gate = nn.Parameter(torch.randn(experts, d, hidden) * d ** -0.5)
        self.up = nn.Parameter(torch.randn(experts, d, hidden) * d ** -0.5)
        self.down = nn.Parameter(torch.randn(experts, hidden, d) * hidden ** -0.5)
        self.bias = nn.Parameter(torch.randn(experts, d) * 0.1)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        t = self.norm(x).reshape(b * s, d)
        probs = F.softmax(self.router(t), dim=-1)
        w, idx = torch.topk(probs, self.k, dim=-1)
        w = w / w.sum(-1, keepdim=True)
        combine = torch.zeros_like(probs).scatter(1, idx, w)                       # [N, E]
        h = F.silu(torch.einsum("nd,edh->enh", t, self.gate)) * torch.einsum("nd,edh->enh", t, self.up)
        y = torch.einsum("enh,ehd->end", h, self.down)                             # [E, N, D]
        out = torch.einsum("ne,end->nd", combine, y)
        top = torch.gather(idx, 1, torch.zeros_like(idx[:, :1]))                  # [N, 1]
        out = out + self.bias[top.squeeze(1)]
        return x + out.reshape(b, s, d)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-torch.log(torch.tensor(10000.0, dtype=t.dtype)) * torch.arange(half, dtype=t.dtype) / half)
    args = t[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class DiffusionBlock(nn.Module):
    """A latent-diffusion UNet up block: sinusoidal timestep embedding, a ResNet block
    (GroupNorm, SiLU, time projection), a spatial transformer (self-attention,
    cross-attention to a text context, GEGLU feed-forward), nearest 2x upsampling and a conv."""

    def __init__(self, c=32, ctx=24, heads=4):
        super().__init__()
        self.c, self.heads = c, heads
        self.time = nn.Sequential(nn.Linear(c, 4 * c), nn.SiLU(), nn.Linear(4 * c, 4 * c))
        self.n1, self.conv1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.temb = nn.Linear(4 * c, c)
        self.n2, self.conv2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.tn, self.proj_in = nn.GroupNorm(8, c, eps=1e-6), nn.Conv2d(c, c, 1)
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(c), nn.LayerNorm(c), nn.LayerNorm(c)
        self.qkv = nn.Linear(c, 3 * c, bias=False)
        self.o1 = nn.Linear(c, c)
        self.q2, self.kv2 = nn.Linear(c, c, bias=False), nn.Linear(ctx, 2 * c, bias=False)
        self.o2 = nn.Linear(c, c)
        self.ff1, self.ff2 = nn.Linear(c, 8 * c), nn.Linear(4 * c, c)
        self.proj_out = nn.Conv2d(c, c, 1)
        self.up = nn.Conv2d(c, c, 3, padding=1)

    def heads_of(self, x):
        b, n, _ = x.shape
        return x.view(b, n, self.heads, -1).transpose(1, 2)

    def attend(self, q, k, v):
        o = F.scaled_dot_product_attention(self.heads_of(q), self.heads_of(k), self.heads_of(v))
        return o.transpose(1, 2).flatten(2)

    def forward(self, x, t, context):
        emb = self.time(timestep_embedding(t, self.c))
        h = self.conv1(F.silu(self.n1(x))) + self.temb(F.silu(emb))[:, :, None, None]
        x = x + self.conv2(F.silu(self.n2(h)))
        b, c, hh, ww = x.shape
        s = self.proj_in(self.tn(x)).flatten(2).transpose(1, 2)              # [B, HW, C]
        q, k, v = self.qkv(self.ln1(s)).chunk(3, dim=-1)
        s = s + self.o1(self.attend(q, k, v))
        k2, v2 = self.kv2(context).chunk(2, dim=-1)
        s = s + self.o2(self.attend(self.q2(self.ln2(s)), k2, v2))
        a, gate = self.ff1(self.ln3(s)).chunk(2, dim=-1)
        s = s + self.ff2(a * F.gelu(gate))
        x = x + self.proj_out(s.transpose(1, 2).reshape(b, c, hh, ww))
        return self.up(F.interpolate(x, scale_factor=2.0, mode="nearest"))


def efficientnet_b0():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    settings, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return EfficientNet(settings, dropout=0.2, last_channel=last, num_classes=10)


def efficientnet_v2():
    from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
    settings = [FusedMBConvConfig(1, 3, 1, 8, 8, 1), FusedMBConvConfig(4, 3, 2, 8, 16, 2),
                MBConvConfig(4, 3, 2, 16, 24, 1), MBConvConfig(6, 3, 2, 24, 32, 1)]
    return EfficientNet(settings, dropout=0.2, last_channel=64, num_classes=10)


def regnet():
    from torchvision.models.regnet import BlockParams, RegNet
    params = BlockParams.from_init_params(depth=4, w_0=8, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
    return RegNet(params, num_classes=10, stem_width=8)


def convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 1)],
                    layer_scale=0.5, num_classes=10)


def swin(v2=False):
    from torchvision.models import swin_transformer as st
    extra = {"block": st.SwinTransformerBlockV2, "downsample_layer": st.PatchMergingV2} if v2 else {}
    return st.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                              window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10, **extra)


def maxvit():
    from torchvision.models.maxvit import MaxVit
    return MaxVit(input_size=(32, 32), stem_channels=16, partition_size=2, block_channels=[16, 32],
                  block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)


def vit():
    return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                hidden_dim=32, mlp_dim=64, num_classes=10)


tv = torchvision.models

SPECS = [
    Spec("resnet_basic", "ResNet (torchvision BasicBlocks)", TinyResNet, image(), grad=True),
    Spec("resnext_bottleneck", "ResNeXt (torchvision Bottleneck, 4 groups)",
         lambda: TinyResNet(Bottleneck, (8, 16, 32), groups=4, base_width=32), image()),
    Spec("regnet", "torchvision RegNet (grouped convs, squeeze-excitation)", regnet, image(), grad=True),
    Spec("efficientnet_b0", "torchvision EfficientNet-B0 0.25x (MBConv, SiLU, squeeze-excitation)",
         efficientnet_b0, image(), grad=True),
    Spec("efficientnet_v2", "torchvision EfficientNetV2-style (FusedMBConv + MBConv)", efficientnet_v2, image()),
    Spec("mobilenet_v2", "torchvision MobileNetV2 0.25x (inverted residuals, ReLU6)",
         lambda: tv.mobilenet_v2(width_mult=0.25, num_classes=10), image(), grad=True),
    Spec("mobilenet_v3_large", "torchvision MobileNetV3-Large 0.25x (hardswish, hardsigmoid SE)",
         lambda: tv.mobilenet_v3_large(width_mult=0.25, num_classes=10), image()),
    Spec("mobilenet_v3_small", "torchvision MobileNetV3-Small 0.5x",
         lambda: tv.mobilenet_v3_small(width_mult=0.5, num_classes=10), image()),
    Spec("mnasnet", "torchvision MNASNet 0.25x", lambda: tv.MNASNet(0.25, num_classes=10), image()),
    Spec("shufflenet_v2", "torchvision ShuffleNetV2 (channel shuffle, chunk)",
         lambda: tv.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10), image()),
    Spec("squeezenet1_1", "torchvision SqueezeNet 1.1 (fire modules, ceil-mode pooling)",
         lambda: tv.squeezenet1_1(num_classes=10), image()),
    Spec("convnext", "torchvision ConvNeXt (7x7 depthwise, LayerNorm2d, layer scale)", convnext, image(),
         grad=True),
    Spec("densenet", "torchvision DenseNet (growth 8, dense concatenation)",
         lambda: tv.DenseNet(growth_rate=8, block_config=(2, 2, 2), num_init_features=16, bn_size=2,
                             num_classes=10), image(), grad=True),
    Spec("googlenet_inception", "torchvision GoogLeNet Inception modules", GoogLeNetBlocks, image()),
    Spec("inception_v3_blocks", "torchvision Inception-v3 modules B, A, C (1x7/7x1 factorized)",
         InceptionV3Blocks, image(hw=32)),
    Spec("fcn", "torchvision FCNHead, dilated backbone, bilinear upsampling", FCN, image()),
    Spec("deeplabv3", "torchvision ASPP + DeepLab head, bilinear upsampling", DeepLabV3, image()),
    Spec("lraspp", "torchvision LR-ASPP on MobileNetV3-Small 0.5x", LRASPPSmall, image()),
    Spec("unet", "UNet (ConvTranspose2d, bilinear upsampling, skip cats)", UNet, image(), grad=True),
    Spec("vit", "torchvision VisionTransformer (2 layers, hidden 32)", vit, image(hw=32), grad=True),
    Spec("swin", "torchvision Swin Transformer (shifted windows, roll, relative position bias)", swin,
         image(hw=32), grad=True),
    Spec("swin_v2", "torchvision Swin Transformer V2 (cosine attention, log-spaced CPB MLP)",
         lambda: swin(True), image(hw=32)),
    Spec("maxvit", "torchvision MaxViT (MBConv, block and grid attention)", maxvit, image(hw=32)),
    Spec("lstm", Recurrent.__doc__.split(";")[0].replace("or GRU", ""), lambda: Recurrent("LSTM"),
         lambda g, b: (torch.randn(b, 10, 16, generator=g),), grad=True),
    Spec("gru", Recurrent.__doc__.split(";")[0].replace("LSTM or ", ""), lambda: Recurrent("GRU"),
         lambda g, b: (torch.randn(b, 10, 16, generator=g),), grad=True),
    Spec("moe", "mixture of experts: top-2 routing, scatter into a gate table, gather, SiLU-gated experts",
         MoE, lambda g, b: (torch.randn(b, 12, 32, generator=g),), grad=True),
    Spec("diffusion_block", "diffusion UNet block: GroupNorm, SiLU, timestep embedding, self- and "
         "cross-attention, GEGLU, nearest upsampling", DiffusionBlock,
         lambda g, b: (torch.randn(b, 32, 8, 8, generator=g), torch.rand(b, generator=g) * 1000,
                       torch.randn(b, 6, 24, generator=g)), grad=True),
]
