"""The model zoo's seventh set of image models (export_zoo.py, round 7): families the first six rounds
lack (Pixtral's 2-d rotary vision encoder, SigLIP 2's resized position grid, RT-DETR's hybrid encoder and
deformable decoder, TextNet's asymmetric convolutions, dual path networks, RepGhost's re-parameterized
ghost blocks), tiny configs with random weights, nothing downloaded."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text5 import Field
from zoo_timm import create, image
from zoo_timm2 import cls


class PixtralVision(torch.nn.Module):
    """Pixtral's vision encoder on whole images (image_sizes from the batch's own shape)."""

    def __init__(self):
        super().__init__()
        self.m = T.PixtralVisionModel(T.PixtralVisionConfig(hidden_size=32, intermediate_size=64,
                                                            num_hidden_layers=2, num_attention_heads=2,
                                                            image_size=32, patch_size=4, head_dim=16))

    def forward(self, pixel_values):
        sizes = [list(pixel_values.shape[-2:])] * pixel_values.shape[0]
        return self.m(pixel_values=pixel_values, image_sizes=sizes).last_hidden_state


class Siglip2Vision(torch.nn.Module):
    """SigLIP 2's NaFlex vision tower on 4x6 patch grids (its position grid resized to them), pooled."""

    def __init__(self):
        super().__init__()
        self.m = T.Siglip2VisionModel(T.Siglip2VisionConfig(hidden_size=32, intermediate_size=64,
                                                            num_hidden_layers=2, num_attention_heads=2,
                                                            num_patches=16, patch_size=4))

    def forward(self, pixel_values, pixel_attention_mask):
        b = pixel_values.shape[0]
        shapes = torch.tensor([[4, 6]] * b)
        return self.m(pixel_values=pixel_values, pixel_attention_mask=pixel_attention_mask,
                      spatial_shapes=shapes).pooler_output


def patches(g, b):
    mask = torch.ones(b, 24, dtype=torch.int64)
    return torch.randn(b, 24, 48, generator=g), mask


def rt_detr():
    backbone = T.RTDetrResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                                    layer_type="basic", out_features=["stage2", "stage3", "stage4"])
    cfg = T.RTDetrConfig(backbone_config=backbone, encoder_hidden_dim=32, encoder_in_channels=[32, 64, 128],
                         encoder_ffn_dim=64, encoder_attention_heads=2, d_model=32, num_queries=10,
                         decoder_in_channels=[32, 32, 32], decoder_ffn_dim=64, decoder_layers=2,
                         decoder_attention_heads=2, num_labels=5, eval_size=None, anchor_image_size=None)
    return Field(T.RTDetrModel(cfg), "last_hidden_state", ["pixel_values"])


def textnet():
    cfg = T.TextNetConfig(stem_out_channels=16, hidden_sizes=[16, 16, 32, 48, 64],
                          conv_layer_kernel_sizes=[[[3, 3], [3, 1]], [[3, 3], [1, 3]], [[3, 3], [3, 3]], [[3, 3]]],
                          conv_layer_strides=[[1, 2], [2, 1], [2, 1], [2]], image_size=(64, 64))
    return Field(T.TextNetModel(cfg), "pooler_output", ["pixel_values"])


SPECS = [
    Spec("pixtral_vision", "transformers PixtralVisionModel (2-d rotary patch attention, RMSNorm, SwiGLU)",
         PixtralVision, image(32)),
    Spec("siglip2_vision", "transformers Siglip2VisionModel (NaFlex patches, position grid resized to the "
         "patch grid, attention pooling)", Siglip2Vision, patches, dynamic=False),
    Spec("rt_detr", "transformers RTDetrModel (ResNet backbone, hybrid encoder, top-k query selection, "
         "deformable attention decoder)", rt_detr, image(64), dynamic=False),
    Spec("textnet", "transformers TextNetModel (re-parameterizable asymmetric 3x1 / 1x3 convolutions)",
         textnet, image(64), grad=True),
    Spec("timm_dpn", "timm DPN (dual path blocks: residual and densely concatenated paths, grouped convs)",
         cls("dpn", "DPN", k_sec=(1, 1, 1, 1), inc_sec=(8, 8, 8, 16), k_r=16, groups=4, num_init_features=16, small=True),
         image(64), grad=True),
    Spec("timm_repghost", "timm RepGhostNet (ghost modules with re-parameterizable identity branches, SE)",
         create("repghostnet_050"), image(64)),
]
