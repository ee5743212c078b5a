"""The model zoo's timm image models (export_zoo.py): families the torchvision and transformers
entries lack, built from timm's own classes in tiny configs with random weights, nothing downloaded."""
import torch
import timm

from zoo_spec import Spec


def image(hw=64):
    return lambda g, b: (torch.randn(b, 3, hw, hw, generator=g),)


def create(name, **kw):
    """A registered timm model with its config shrunk by keyword arguments (no pretrained weights)."""
    return lambda: timm.create_model(name, pretrained=False, num_classes=10, **kw)


def resnest():
    from timm.models.resnet import ResNet
    from timm.models.resnest import ResNestBottleneck
    return ResNet(block=ResNestBottleneck, layers=[1, 1, 1, 1], channels=(8, 16, 24, 32), stem_type="deep", stem_width=8,
                  avg_down=True, base_width=64, cardinality=1, num_classes=10,
                  block_args=dict(radix=2, avd=True, avd_first=False))


def sknet():
    from timm.models.resnet import ResNet
    from timm.models.sknet import SelectiveKernelBasic
    return ResNet(block=SelectiveKernelBasic, layers=[1, 1, 1, 1], channels=(8, 16, 24, 32), stem_width=16, num_classes=10,
                  block_args=dict(sk_kwargs=dict(rd_ratio=1 / 8, rd_divisor=16, split_input=True)))


def eca_resnet():
    from timm.models.resnet import ResNet, BasicBlock
    return ResNet(block=BasicBlock, layers=[1, 1, 1, 1], channels=(16, 32, 48, 64), stem_width=16, num_classes=10,
                  block_args=dict(attn_layer="eca"))


def res2net():
    from timm.models.resnet import ResNet
    from timm.models.res2net import Bottle2neck
    return ResNet(block=Bottle2neck, layers=[1, 1, 1, 1], channels=(8, 16, 24, 32), stem_width=16, base_width=26,
                  num_classes=10, block_args=dict(scale=4))


def nfnet():
    from timm.models.nfnet import NormFreeNet, NfCfg
    cfg = NfCfg(depths=(1, 1, 1), channels=(32, 64, 96), stem_chs=16, stem_type="deep_quad", group_size=8,
                bottle_ratio=0.5, extra_conv=True, act_layer="gelu", attn_layer="se", attn_kwargs=dict(rd_ratio=0.5),
                num_features=128)
    return NormFreeNet(cfg, num_classes=10)


def cspdarknet():
    from timm.models.cspnet import CspNet, CspModelCfg, CspStemCfg, CspStagesCfg
    cfg = CspModelCfg(stem=CspStemCfg(out_chs=16, kernel_size=3, stride=1, pool=""),
                      stages=CspStagesCfg(depth=(1, 1, 1), out_chs=(16, 32, 64), stride=2, expand_ratio=2.,
                                          bottle_ratio=0.5, block_ratio=1., avg_down=False,
                                          stage_type="csp", block_type="dark", down_growth=True),
                      act_layer="leaky_relu")
    return CspNet(cfg, num_classes=10)


def repvgg():
    from timm.models.byobnet import ByobNet, ByoModelCfg, ByoBlockCfg
    cfg = ByoModelCfg(blocks=(ByoBlockCfg(type="rep", d=2, c=16, s=2, gs=0, br=1.),
                              ByoBlockCfg(type="rep", d=2, c=32, s=2, gs=0, br=1.),
                              ByoBlockCfg(type="rep", d=1, c=64, s=2, gs=0, br=1.)),
                      stem_type="rep", stem_chs=16)
    return ByobNet(cfg, num_classes=10)


def botnet():
    from timm.models.byobnet import ByobNet, ByoModelCfg, ByoBlockCfg
    cfg = ByoModelCfg(blocks=(ByoBlockCfg(type="bottle", d=1, c=32, s=2, gs=0, br=0.25),
                              ByoBlockCfg(type="self_attn", d=2, c=64, s=2, gs=0, br=0.25)),
                      stem_chs=16, stem_type="tiered", stem_pool="maxpool", fixed_input_size=True,
                      self_attn_layer="bottleneck", self_attn_kwargs=dict())
    return ByobNet(cfg, num_classes=10, img_size=64)


def halonet():
    from timm.models.byobnet import ByobNet, ByoModelCfg, ByoBlockCfg
    cfg = ByoModelCfg(blocks=(ByoBlockCfg(type="bottle", d=1, c=32, s=2, gs=0, br=0.25),
                              ByoBlockCfg(type="self_attn", d=1, c=64, s=2, gs=0, br=0.25)),
                      stem_chs=16, stem_type="tiered", stem_pool="maxpool",
                      self_attn_layer="halo", self_attn_kwargs=dict(block_size=4, halo_size=1, num_heads=4))
    return ByobNet(cfg, num_classes=10)


def tresnet():
    from timm.models.tresnet import TResNet
    return TResNet(layers=[1, 1, 1, 1], width_factor=0.25, num_classes=10)


def vovnet():
    from timm.models.vovnet import VovNet
    cfg = dict(stem_chs=[16, 16, 32], stage_conv_chs=[16, 24, 32, 40], stage_out_chs=[32, 48, 64, 80],
               layer_per_block=3, block_per_stage=[1, 1, 1, 1], residual=True, depthwise=True, attn="ese")
    return VovNet(cfg, num_classes=10)


def mixer():
    from timm.models.mlp_mixer import MlpMixer
    return MlpMixer(num_classes=10, img_size=64, patch_size=8, num_blocks=2, embed_dim=64)


def resmlp():
    from timm.models.mlp_mixer import MlpMixer, ResBlock, Affine
    return MlpMixer(num_classes=10, img_size=64, patch_size=8, num_blocks=2, embed_dim=64, mlp_ratio=4,
                    block_layer=ResBlock, norm_layer=Affine)


def poolformer():
    from timm.models.metaformer import MetaFormer
    return MetaFormer(depths=(1, 1, 1, 1), dims=(16, 32, 48, 64), num_classes=10)


def ghostnet():
    from timm.models.ghostnet import _create_ghostnet
    return _create_ghostnet("ghostnet_100", width=0.25, num_classes=10)


def levit():
    from timm.models.levit import Levit
    return Levit(img_size=64, embed_dim=(32, 48), key_dim=8, depth=(1, 1), num_heads=(2, 3), num_classes=10,
                 stem_type="s16", down_op="subsample")


def hiera():
    from timm.models.hiera import Hiera
    return Hiera(img_size=(64, 64), embed_dim=16, num_heads=1, stages=(1, 1, 1, 1), q_pool=2,
                 mask_unit_size=(4, 4), num_classes=10)


SPECS = [
    Spec("timm_resnest", "timm ResNeSt (split attention, radix-2 softmax, avg-pool downsampling)", resnest,
         image(), grad=True),
    Spec("timm_sknet", "timm SKNet (selective kernel: split input, 3x3 and dilated branches, softmax attention)",
         sknet, image()),
    Spec("timm_eca_resnet", "timm ECA-ResNet (efficient channel attention: conv1d over pooled channels)",
         eca_resnet, image(), grad=True),
    Spec("timm_res2net", "timm Res2Net (hierarchical split 3x3 convs within a block)", res2net, image()),
    Spec("timm_nfnet", "timm NFNet (scaled weight-standardised convs: weight statistics in the forward)",
         nfnet, image(), grad=True),
    Spec("timm_cspdarknet", "timm CSPDarkNet (cross-stage partial stages, LeakyReLU)", cspdarknet, image()),
    Spec("timm_repvgg", "timm RepVGG (3x3 + 1x1 + identity branches, training form)", repvgg, image()),
    Spec("timm_ghostnet", "timm GhostNet 0.25x (ghost modules: cheap depthwise features concatenated)",
         ghostnet, image()),
    Spec("timm_rexnet", "timm ReXNet 0.5x (partial-channel residual add, SiLU, SE)",
         create("rexnetr_100", width_mult=0.5, final_chs=128), image()),
    # Aggregation sums grow the logits to ~100, where PyTorch's own float32 result is 3e-5
    # from float64's: the absolute tolerance follows that scale.
    Spec("timm_dla", "timm DLA-34-style (deep layer aggregation trees)",
         create("dla34", levels=(1, 1, 1, 1, 1, 1), channels=(8, 16, 16, 32, 64, 64)), image(), atol=2e-4),
    Spec("timm_tresnet", "timm TResNet (space-to-depth stem, anti-aliased downsampling, inplace-ABN)",
         tresnet, image()),
    Spec("timm_vovnet", "timm VoVNetV2 (one-shot aggregation, effective SE with hard sigmoid)", vovnet,
         image()),
    Spec("timm_botnet", "timm BoTNet (bottleneck self-attention with relative position logits)", botnet,
         image()),
    Spec("timm_halonet", "timm HaloNet (blocked local attention with halos: unfold, relative positions)",
         halonet, image()),
    Spec("timm_mixer", "timm MLP-Mixer (token-mixing MLPs over transposed patches)",
         mixer, image(), grad=True),
    Spec("timm_resmlp", "timm ResMLP (affine normalisation, linear token mixing, layer scale)",
         resmlp, image()),
    Spec("timm_poolformer", "timm PoolFormerV2 (average-pool token mixer, StarReLU, GroupNorm-1)",
         poolformer, image()),
    Spec("timm_levit", "timm LeViT (attention biases indexed by offsets, BN on linear layers, hardswish)",
         levit, image()),
    Spec("timm_beit", "timm BEiT (relative position bias table, layer scale)",
         create("beit_base_patch16_224", img_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=4),
         image(32), grad=True),
    Spec("timm_eva", "timm EVA-02 (2-d RoPE, SwiGLU, sub-LayerNorm)",
         create("eva02_tiny_patch14_224", img_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=4),
         image(32)),
    Spec("timm_convnextv2", "timm ConvNeXtV2 (global response normalisation)",
         create("convnextv2_atto", depths=(1, 1, 1, 1), dims=(16, 32, 48, 64)), image(), grad=True),
    Spec("timm_pvt_v2", "timm PVTv2 (spatial-reduction attention, overlapping patch embeddings, depthwise MLP)",
         create("pvt_v2_b0", depths=(1, 1, 1, 1), embed_dims=(16, 32, 48, 64), num_heads=(1, 2, 3, 4)), image()),
    Spec("timm_twins", "timm Twins-SVT (locally-grouped and global sub-sampled attention, PEG)",
         create("twins_svt_small", img_size=64, depths=(1, 1, 1, 1), embed_dims=(16, 32, 48, 64),
                num_heads=(1, 2, 3, 4), wss=(4, 4, 2, 2)), image()),
    Spec("timm_mambaout", "timm MambaOut (gated CNN blocks, channels-last depthwise convs)",
         create("mambaout_femto", depths=(1, 1, 1, 1), dims=(16, 32, 48, 64)), image()),
    Spec("timm_fastvit", "timm FastViT (RepMixer, conditional positional encoding, MobileOne stem)",
         create("fastvit_t8", layers=(1, 1, 1, 1), embed_dims=(32, 64, 128, 256)), image()),
    Spec("timm_efficientformer", "timm EfficientFormer (pool mixers, then attention with biases)",
         create("efficientformer_l1", depths=(1, 1, 1, 2), embed_dims=(16, 32, 48, 64), num_vit=1), image(224)),
    Spec("timm_hiera", "timm Hiera (mask-unit attention, unrolled token order, q-pooling)", hiera, image()),
]
