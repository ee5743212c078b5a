"""The model zoo's fourth set of timm image models (export_zoo.py, round 4): families the first three
sets lack (hybrid conv-attention, pooling and MLP token mixers, re-parameterisable and mobile nets),
built from timm's own classes in tiny configs with random weights, nothing downloaded."""
import dataclasses

from zoo_spec import Spec
from zoo_timm import create, image
from zoo_timm2 import cls


def coatnet():
    from timm.models.maxxvit import MaxxVit, model_cfgs
    cfg = dataclasses.replace(model_cfgs["coatnet_nano_rw"], embed_dim=(16, 24, 32, 48), depths=(1, 1, 1, 1),
                              stem_width=(8, 16))
    cfg = dataclasses.replace(cfg, transformer_cfg=dataclasses.replace(cfg.transformer_cfg, dim_head=8))
    return MaxxVit(cfg, img_size=64, num_classes=10)


def gmlp():
    from timm.models.mlp_mixer import GatedMlp, MlpMixer, SpatialGatingBlock
    return MlpMixer(num_classes=10, img_size=32, patch_size=8, num_blocks=2, embed_dim=32, mlp_ratio=4,
                    block_layer=SpatialGatingBlock, mlp_layer=GatedMlp)


def mobilenetv4():
    from timm.models.mobilenetv3 import _gen_mobilenet_v4
    return _gen_mobilenet_v4("mobilenetv4_hybrid_medium", 0.25, num_classes=10)


SPECS = [
    Spec("timm_coatnet", "timm CoAtNet (MBConv stages then relative-position transformer stages)", coatnet,
         image()),
    Spec("timm_gcvit", "timm GC ViT (global query tokens from a conv feature extractor, window attention)",
         cls("gcvit", "GlobalContextVit", img_size=64, depths=(1, 1, 1, 1), embed_dim=16, num_heads=(1, 2, 2, 4),
                window_size=(4, 4, 4, 2)), image()),
    Spec("timm_pit", "timm PiT (pooling-based ViT: depthwise strided token pooling between stages)",
         create("pit_ti_224", img_size=32, patch_size=8, stride=4, base_dims=[8, 8, 8], depth=[1, 1, 1],
                heads=[2, 2, 2]), image(32)),
    Spec("timm_nest", "timm NesT (nested local transformers over image blocks, conv-pool aggregation)",
         cls("nest", "Nest", img_size=32, patch_size=4, embed_dims=(16, 32, 32), num_heads=(1, 2, 2),
                depths=(1, 1, 1)), image(32)),
    Spec("timm_visformer", "timm Visformer (conv stem, BN-transformer stages, grouped MLP)",
         create("visformer_tiny", img_size=64, init_channels=8, embed_dim=48, depth=(1, 1, 1), num_heads=2),
         image()),
    Spec("timm_inception_next", "timm InceptionNeXt (depthwise kernels split into square, band and identity)",
         create("inception_next_tiny", depths=(1, 1, 1, 1), dims=(16, 32, 48, 64)), image()),
    Spec("timm_starnet", "timm StarNet (element-wise 'star' products of two branches)",
         create("starnet_s050", base_dim=8, depths=(1, 1, 1, 1)), image()),
    Spec("timm_repvit", "timm RepViT (re-parameterisable depthwise token mixer, SE, channel MLP)",
         create("repvit_m0_9", embed_dim=(16, 32, 48, 64), depth=(1, 1, 1, 1)), image()),
    Spec("timm_gmlp", "timm gMLP (spatial gating unit: a linear over tokens gates half the channels)",
         gmlp, image(32)),
    Spec("timm_convmixer", "timm ConvMixer (patch conv, depthwise and pointwise convs with residuals)",
         cls("convmixer", "ConvMixer", dim=32, depth=2, kernel_size=5, patch_size=4), image(32)),
    Spec("timm_efficientvit_msra", "timm EfficientViT-M (cascaded group attention, sandwich layout)",
         create("efficientvit_m0", img_size=64, embed_dim=(16, 32, 48), depth=(1, 1, 1), num_heads=(2, 2, 2),
                window_size=(4, 4, 4), kernels=(5, 5, 5, 5)), image()),
    Spec("timm_deit3", "timm DeiT III (ViT with layer scale, no distillation token)",
         create("deit3_small_patch16_224", img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2),
         image(32)),
    Spec("timm_swinv2_cr", "timm Swin V2 CR (scaled cosine attention, post-norm, log-spaced position MLP)",
         create("swinv2_cr_tiny_224", img_size=(64, 64), embed_dim=16, depths=(1, 1, 1, 1), num_heads=(1, 2, 2, 4),
                window_size=(4, 4)), image()),
    Spec("timm_shvit", "timm SHViT (single-head attention on a channel split, partial convs)",
         create("shvit_s1", embed_dim=(16, 32, 48), partial_dim=(8, 8, 8), depth=(1, 1, 1), qk_dim=(8, 8, 8)),
         image()),
    Spec("timm_fasternet", "timm FasterNet (partial convolution on a quarter of the channels)",
         create("fasternet_t0", embed_dim=16, depths=(1, 1, 1, 1)), image()),
    Spec("timm_mobilenetv4", "timm MobileNetV4 hybrid 0.25x (universal inverted bottlenecks, mobile MQA)",
         mobilenetv4, image()),
    Spec("timm_rdnet", "timm RDNet (revived DenseNet: concatenating blocks, transition layers)",
         create("rdnet_tiny", num_init_features=16, growth_rates=(8, 16, 16, 16), num_blocks_list=(1, 1, 1, 1),
                is_downsample_block=(None, True, True, False)), image()),
    Spec("timm_coat", "timm CoaT-Lite (conv-attentional: factorized attention, convolutional relative positions)",
         create("coat_lite_tiny", img_size=32, embed_dims=[16, 32, 32, 48], serial_depths=[1, 1, 1, 1],
                num_heads=8, mlp_ratios=[2, 2, 2, 2]), image(32)),
]
