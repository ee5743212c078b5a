"""The model zoo's fifth set of image models (export_zoo.py, round 5): timm and torchvision families
the first four rounds lack (rotary and windowed-relative ViTs, mixed-kernel and re-parameterised mobile
nets, MetaFormer mixers, detection and keypoint heads, torchvision's Swin V2), tiny configs with random
weights, nothing downloaded."""
import torch

from zoo_spec import Spec
from zoo_timm import image
from zoo_timm2 import cls


def mixnet():
    from timm.models.efficientnet import _gen_mixnet_s
    return _gen_mixnet_s("mixnet_s", channel_multiplier=0.25, num_classes=10)


def lcnet():
    from timm.models.mobilenetv3 import _gen_lcnet
    return _gen_lcnet("lcnet_035", 0.35, num_classes=10)


def caformer():
    from timm.models.metaformer import Attention, LayerNorm2dNoBias, LayerNormNoBias, MetaFormer, SepConv
    return MetaFormer(depths=(1, 1, 1, 1), dims=(16, 24, 32, 64), token_mixers=(SepConv, SepConv, Attention, Attention),
                      norm_layers=[LayerNorm2dNoBias] * 2 + [LayerNormNoBias] * 2, num_classes=10)


def ghostnetv2():
    from timm.models.ghostnet import _create_ghostnet
    return _create_ghostnet("ghostnetv2_100", width=0.25, version="v2", num_classes=10)


def swin_v2_tv():
    from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1, 2, 1], num_heads=[1, 2, 2, 4],
                           window_size=[4, 4], block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2,
                           num_classes=10)


class RoIHeads(torch.nn.Module):
    """torchvision's Mask R-CNN and Keypoint R-CNN heads on pooled region features (the part after
    RoIAlign): conv towers, transposed-conv predictors and the keypoint heatmaps' bilinear upsampling."""

    def __init__(self):
        super().__init__()
        from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor
        from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
        self.mask_head = MaskRCNNHeads(16, [16, 16], 1)
        self.mask_predictor = MaskRCNNPredictor(16, 16, 5)
        self.kp_head = KeypointRCNNHeads(16, (16, 16))
        self.kp_predictor = KeypointRCNNPredictor(16, 7)

    def forward(self, mask_features, keypoint_features):
        return self.mask_predictor(self.mask_head(mask_features)), self.kp_predictor(self.kp_head(keypoint_features))


def roi_features(g, b):
    return torch.randn(b, 16, 14, 14, generator=g), torch.randn(b, 16, 14, 14, generator=g)


SPECS = [
    Spec("timm_eva02", "timm EVA-02 (2-d rotary position embedding, SwiGLU MLP, sub-LayerNorm)",
         cls("eva", "Eva", img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, mlp_ratio=4 * 2 / 3,
             swiglu_mlp=True, scale_mlp=True, use_rot_pos_emb=True, ref_feat_shape=(4, 4)), image(32)),
    Spec("timm_samvit", "timm SAM ViT encoder (windowed and global attention with decomposed relative "
         "positions, conv neck)", cls("vision_transformer_sam", "VisionTransformerSAM", img_size=64, patch_size=8,
                                      embed_dim=32, depth=2, num_heads=2, window_size=4, global_attn_indexes=(1,),
                                      use_rel_pos=True, neck_chans=16, global_pool="avg"), image(64)),
    Spec("timm_mixnet", "timm MixNet-S at 0.25 width (mixed depthwise kernel sizes, grouped pointwise convs)",
         mixnet, image()),
    Spec("timm_lcnet", "timm PP-LCNet 0.35 (depthwise-separable blocks, hard-swish, late SE)", lcnet, image()),
    Spec("timm_ghostnetv2", "timm GhostNetV2 (ghost modules with DFC attention: pooled, gated, upsampled)",
         ghostnetv2, image()),
    Spec("timm_efficientformerv2", "timm EfficientFormerV2 (4-d attention with talking heads, strided "
         "attention downsampling)", cls("efficientformer_v2", "EfficientFormerV2", depths=(1, 1, 2, 1),
                                        embed_dims=(16, 24, 32, 48), img_size=64, num_vit=1), image()),
    Spec("timm_caformer", "timm CAFormer (MetaFormer: separable-conv then attention token mixers, "
         "StarReLU, scaled residuals)", caformer, image()),
    Spec("tv_swin_v2", "torchvision Swin V2 (cosine attention with log-spaced continuous position bias)",
         swin_v2_tv, image(32)),
    Spec("tv_roi_heads", "torchvision Mask R-CNN and Keypoint R-CNN heads on pooled region features",
         RoIHeads, roi_features),
]
