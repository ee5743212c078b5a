"""The model zoo's video and optical-flow models (export_zoo.py): torchvision's 3-d ResNet blocks
(conv3d, 3-d pooling, (2+1)-d factorised convs) in tiny widths and RAFT-small (correlation volumes,
grid_sample, a recurrent update), random weights, nothing downloaded."""
import torch
import torch.nn as nn

from zoo_spec import Spec


class VideoNet(nn.Module):
    """torchvision's VideoResNet shape (stem, four BasicBlock stages, 3-d average pooling, a linear
    head) with widths 8..32: `conv` builds each block's convolutions, as in r3d_18 / r2plus1d_18 / mc3_18."""

    def __init__(self, convs, stem):
        super().__init__()
        from torchvision.models.video.resnet import BasicBlock
        self.stem = stem
        layers, inplanes = [], 8
        for conv, planes, stride in zip(convs, (8, 16, 24, 32), (1, 2, 2, 2)):
            down = None
            if stride != 1 or inplanes != planes:
                ds = conv.get_downsample_stride(stride)
                down = nn.Sequential(nn.Conv3d(inplanes, planes, 1, stride=ds, bias=False), nn.BatchNorm3d(planes))
            layers.append(BasicBlock(inplanes, planes, conv, stride, down))
            inplanes = planes
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(self.pool(x).flatten(1))


def r3d():
    from torchvision.models.video.resnet import Conv3DSimple
    stem = nn.Sequential(nn.Conv3d(3, 8, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
                         nn.BatchNorm3d(8), nn.ReLU(inplace=True))
    return VideoNet([Conv3DSimple] * 4, stem)


def r2plus1d():
    from torchvision.models.video.resnet import Conv2Plus1D

    def conv(i, o, mid, stride=1, padding=1):  # torchvision's midplanes formula gives 0..-1 at these widths
        return Conv2Plus1D(i, o, max(mid // 8, 4), stride, padding)
    conv.get_downsample_stride = Conv2Plus1D.get_downsample_stride
    stem = nn.Sequential(nn.Conv3d(3, 6, (1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
                         nn.BatchNorm3d(6), nn.ReLU(inplace=True),
                         nn.Conv3d(6, 8, (3, 1, 1), padding=(1, 0, 0), bias=False),
                         nn.BatchNorm3d(8), nn.ReLU(inplace=True))
    return VideoNet([conv] * 4, stem)


def mc3():
    from torchvision.models.video.resnet import Conv3DSimple, Conv3DNoTemporal
    stem = nn.Sequential(nn.Conv3d(3, 8, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
                         nn.BatchNorm3d(8), nn.ReLU(inplace=True), nn.MaxPool3d((1, 3, 3), (1, 2, 2), (0, 1, 1)))
    return VideoNet([Conv3DSimple] + [Conv3DNoTemporal] * 3, stem)


def clip(g, b):
    return (torch.randn(b, 3, 4, 32, 32, generator=g),)


class Raft(nn.Module):
    """torchvision's RAFT-small architecture at half its widths, two flow updates; the last flow estimate."""

    def __init__(self):
        super().__init__()
        from torchvision.models.optical_flow.raft import _raft, BottleneckBlock
        self.m = _raft(feature_encoder_layers=(16, 16, 32, 48, 64), feature_encoder_block=BottleneckBlock,
                       feature_encoder_norm_layer=nn.InstanceNorm2d, context_encoder_layers=(16, 16, 32, 48, 80),
                       context_encoder_block=BottleneckBlock, context_encoder_norm_layer=None,
                       corr_block_num_levels=4, corr_block_radius=3, motion_encoder_corr_layers=(48,),
                       motion_encoder_flow_layers=(32, 16), motion_encoder_out_channels=42,
                       recurrent_block_hidden_state_size=48, recurrent_block_kernel_size=(3,),
                       recurrent_block_padding=(1,), flow_head_hidden_size=64, use_mask_predictor=False)

    def forward(self, a, b):
        return self.m(a, b, num_flow_updates=2)[-1]


SPECS = [
    Spec("tv_r3d", "torchvision R3D blocks (conv3d 3x3x3, BatchNorm3d, 3-d adaptive pooling)", r3d, clip),
    Spec("tv_r2plus1d", "torchvision R(2+1)D blocks (factorised spatial then temporal conv3d)", r2plus1d, clip,
         grad=True),
    Spec("tv_mc3", "torchvision MC3 (conv3d stem, 3-d max pooling, then 1x3x3 convs)", mc3, clip),
    Spec("tv_raft_small", "torchvision RAFT-small at half width (all-pairs correlation pyramid, grid_sample lookups, "
         "ConvGRU updates, convex upsampling)", Raft,
         lambda g, b: (torch.randn(b, 3, 128, 128, generator=g), torch.randn(b, 3, 128, 128, generator=g)),
         atol=1e-4),
]
