"""The model zoo's second set of timm image models (export_zoo.py): attention and hybrid families the
first set lacks, built from timm's own classes in tiny configs with random weights, nothing downloaded."""
import timm

from zoo_spec import Spec
from zoo_timm import create, image


def mobilevitv2():
    from timm.models.byobnet import ByobNet
    from timm.models.mobilevit import _mobilevitv2_cfg
    return ByobNet(_mobilevitv2_cfg(0.25), num_classes=10)


def cls(module, name, **kw):
    def make():
        import importlib
        return getattr(importlib.import_module(f"timm.models.{module}"), name)(num_classes=10, **kw)
    return make


SPECS = [
    Spec("timm_xcit", "timm XCiT (cross-covariance attention, local patch interaction, class attention)",
         create("xcit_nano_12_p16_224", img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2),
         image(32), grad=True),
    Spec("timm_cait", "timm CaiT (talking-heads attention, class-attention layers, layer scale)",
         create("cait_xxs24_224", img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2,
                depth_token_only=1), image(32)),
    Spec("timm_convit", "timm ConViT (gated positional self-attention)",
         create("convit_tiny", img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, local_up_to_layer=1),
         image(32)),
    Spec("timm_crossvit", "timm CrossViT (two patch sizes, cross-attention between class tokens)",
         create("crossvit_tiny_240", img_size=(32, 32), img_scale=(1.0, 1.0), patch_size=(8, 16), embed_dim=(16, 32),
                depth=((1, 1, 0),), num_heads=(2, 2), mlp_ratio=(2, 2, 1)), image(32)),
    Spec("timm_tnt", "timm TNT (pixel-level inner transformer inside patch-level outer transformer)",
         cls("tnt", "TNT", img_size=32, patch_size=8, embed_dim=32, inner_dim=8, depth=2, num_heads_outer=2,
             num_heads_inner=2), image(32)),
    Spec("timm_davit", "timm DaViT (spatial window and channel group attention, conv positional encodings)",
         create("davit_tiny", depths=(1, 1, 1, 1), embed_dims=(16, 32, 48, 64), num_heads=(1, 2, 3, 4)), image()),
    Spec("timm_focalnet", "timm FocalNet (focal modulation: gated hierarchical depthwise contexts)",
         cls("focalnet", "FocalNet", depths=(1, 1, 1, 1), embed_dim=16), image()),
    Spec("timm_edgenext", "timm EdgeNeXt (split depthwise transposed attention, channel-wise attention)",
         create("edgenext_xx_small", depths=(1, 1, 1, 1), dims=(16, 32, 48, 64), heads=(2, 2, 2, 2),
                d2_scales=(2, 2, 3, 4)), image()),
    Spec("timm_efficientvit", "timm EfficientViT-MIT (ReLU linear attention, multi-scale aggregation)",
         cls("efficientvit_mit", "EfficientVit", widths=(8, 16, 32, 64, 128), depths=(1, 1, 1, 1, 1), head_dim=16,
             head_widths=(64, 128)), image()),
    Spec("timm_volo", "timm VOLO (outlook attention: unfold, fold, local attention weights)",
         cls("volo", "VOLO", layers=(1, 1, 1, 1), img_size=64, embed_dims=(32, 64, 64, 64), num_heads=(1, 2, 2, 2),
             stem_hidden_dim=16), image()),
    Spec("timm_sequencer", "timm Sequencer2D (bidirectional LSTMs along rows and columns)",
         create("sequencer2d_s", img_size=64, layers=(1, 1, 1), patch_sizes=(8, 2, 1), embed_dims=(16, 32, 32),
                hidden_sizes=(8, 16, 16), mlp_ratios=(2, 2, 2)), image()),
    Spec("timm_tiny_vit", "timm TinyViT (MBConv stage, windowed attention with padding, attention biases)",
         cls("tiny_vit", "TinyVit", depths=(1, 1, 1, 1), embed_dims=(16, 32, 48, 64), num_heads=(1, 2, 3, 4),
             window_sizes=(2, 2, 2, 2)), image()),
    Spec("timm_mobilevitv2", "timm MobileViTv2 0.25x (separable linear attention over unfolded patches)",
         mobilevitv2, image()),
]
