"""The model zoo's sixth set of image and other models (export_zoo.py, round 6): timm, transformers and
hand-written families the first five rounds lack (a vision state-space model, SAM 2's Hiera, multiscale
pooling attention, HGNetV2's light blocks, Mask2Former's deformable pixel decoder, a diffusion
transformer block, a recommendation model of embedding bags), tiny configs with random weights, nothing
downloaded."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import transformers as T

from zoo_spec import Spec
from zoo_text5 import Field
from zoo_timm import image
from zoo_timm2 import cls


def mvitv2():
    from timm.models.mvitv2 import MultiScaleVit, MultiScaleVitCfg
    cfg = MultiScaleVitCfg(depths=(1, 1, 1, 1), embed_dim=16, num_heads=1)
    return MultiScaleVit(cfg, img_size=(64, 64), num_classes=10)


def hgnet_v2():
    cfg = T.HGNetV2Config(embedding_size=16, depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 96, 128],
                          stem_channels=[3, 8, 16], stage_in_channels=[16, 32, 64, 96],
                          stage_mid_channels=[8, 16, 24, 32], stage_out_channels=[32, 64, 96, 128],
                          stage_num_blocks=[1, 1, 1, 1], stage_numb_of_layers=[2, 2, 2, 2],
                          stage_light_block=[False, False, True, True], stage_kernel_size=[3, 3, 5, 5],
                          use_learnable_affine_block=True, num_labels=10)
    return Field(T.HGNetV2ForImageClassification(cfg), "logits", ["pixel_values"])


def mask2former():
    backbone = T.SwinConfig(image_size=64, patch_size=4, embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2],
                            window_size=4, out_features=["stage1", "stage2", "stage3", "stage4"])
    cfg = T.Mask2FormerConfig(backbone_config=backbone, feature_size=32, mask_feature_size=32, hidden_dim=32,
                              encoder_feedforward_dim=64, encoder_layers=1, decoder_layers=2, num_attention_heads=2,
                              dim_feedforward=64, num_queries=8, num_labels=5)
    return Field(T.Mask2FormerModel(cfg), "pixel_decoder_last_hidden_state", ["pixel_values"])


class DiTBlock(nn.Module):
    """A diffusion transformer (DiT): patchify, sinusoidal timestep and label embeddings, two blocks with
    adaLN-Zero modulation (shift, scale and gate per branch from the conditioning), a modulated final
    layer and unpatchify."""

    def __init__(self, ch=4, d=32, heads=4, patch=2, hw=8, classes=10, depth=2):
        super().__init__()
        self.ch, self.p, self.heads, self.n = ch, patch, heads, hw // patch
        self.embed = nn.Conv2d(ch, d, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(1, self.n * self.n, d) * 0.02)
        self.t_mlp = nn.Sequential(nn.Linear(64, d), nn.SiLU(), nn.Linear(d, d))
        self.y_embed = nn.Embedding(classes + 1, d)
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.ModuleDict(dict(
                qkv=nn.Linear(d, 3 * d), proj=nn.Linear(d, d),
                mlp=nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d)),
                ada=nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d)))))
        self.final_ada = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))
        self.final = nn.Linear(d, patch * patch * ch * 2)

    @staticmethod
    def timestep(t, dim=64, max_period=10000):
        half = dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=t.dtype) / half)
        args = t[:, None] * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, x, t, y):
        b = x.shape[0]
        h = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        c = self.t_mlp(self.timestep(t)) + self.y_embed(y)
        norm = lambda v: F.layer_norm(v, v.shape[-1:], eps=1e-6)  # noqa: E731
        for blk in self.blocks:
            s1, sc1, g1, s2, sc2, g2 = blk["ada"](c).unsqueeze(1).chunk(6, dim=-1)
            a = norm(h) * (1 + sc1) + s1
            q, k, v = blk["qkv"](a).reshape(b, -1, 3, self.heads, h.shape[-1] // self.heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, -1, h.shape[-1])
            h = h + g1 * blk["proj"](a)
            h = h + g2 * blk["mlp"](norm(h) * (1 + sc2) + s2)
        shift, scale = self.final_ada(c).unsqueeze(1).chunk(2, dim=-1)
        h = self.final(norm(h) * (1 + scale) + shift)
        h = h.reshape(b, self.n, self.n, self.p, self.p, 2 * self.ch).permute(0, 5, 1, 3, 2, 4)
        return h.reshape(b, 2 * self.ch, self.n * self.p, self.n * self.p)


def dit_inputs(g, b):
    return (torch.randn(b, 4, 8, 8, generator=g), torch.rand(b, generator=g) * 1000,
            torch.randint(0, 11, (b,), generator=g))


class DLRM(nn.Module):
    """A DLRM-style recommendation model: a bottom MLP over dense features, embedding bags over sparse
    ids (sum, mean, max, and a sum weighted per sample), pairwise dot-product interactions of all the
    vectors (their upper triangle), a top MLP and a sigmoid."""

    def __init__(self, dense=13, d=16, rows=50, bag=4):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense, 32), nn.ReLU(), nn.Linear(32, d), nn.ReLU())
        self.tables = nn.ModuleList([nn.EmbeddingBag(rows, d, mode=m) for m in ("sum", "mean", "max", "sum")])
        n = len(self.tables) + 1
        self.register_buffer("pairs", torch.triu_indices(n, n, offset=1), persistent=False)
        self.top = nn.Sequential(nn.Linear(d + n * (n - 1) // 2, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense, ids, weights):
        x = self.bottom(dense)
        embs = [t(ids[:, i], per_sample_weights=weights if i == 3 else None) for i, t in enumerate(self.tables)]
        z = torch.stack([x] + embs, dim=1)
        inter = torch.bmm(z, z.transpose(1, 2))[:, self.pairs[0], self.pairs[1]]
        return torch.sigmoid(self.top(torch.cat([x, inter], dim=1)))


def dlrm_inputs(g, b):
    return (torch.randn(b, 13, generator=g), torch.randint(0, 50, (b, 4, 4), generator=g),
            torch.rand(b, 4, generator=g))


SPECS = [
    Spec("timm_efficientvim", "timm EfficientViM (hidden-state mixer state-space duality, a vision Mamba "
         "without recurrence over pixels)", cls("efficientvim", "EfficientViM", embed_dim=(16, 32, 48),
                                                 depths=(1, 1, 1), state_dim=(16, 9, 4)), image(64)),
    Spec("timm_hieradet", "timm HieraDet (SAM 2's image encoder: windowed attention with query pooling, "
         "a bicubically resized global position embedding plus a tiled window one)",
         cls("hieradet_sam2", "HieraDet", embed_dim=16, num_heads=1, stages=(1, 1, 2, 1), global_att_blocks=(3,),
             window_spec=(4, 4, 2, 2), global_pos_size=(4, 4)), image(64)),
    Spec("timm_mvitv2", "timm MViTv2 (pooling attention with decomposed relative positions, residual "
         "pooling)", mvitv2, image(64)),
    Spec("hgnet_v2", "transformers HGNetV2ForImageClassification (learnable affine blocks, light "
         "depthwise blocks, aggregated concatenation)", hgnet_v2, image(64), grad=True),
    Spec("mask2former", "transformers Mask2FormerModel (Swin backbone, multi-scale deformable-attention "
         "pixel decoder by grid sampling, masked-attention decoder)", mask2former, image(64)),
    Spec("dit_block", "diffusion transformer (DiT): adaLN-Zero blocks conditioned on timestep and label, "
         "patchify and unpatchify", DiTBlock, dit_inputs, grad=True),
    Spec("dlrm", "DLRM-style recommender: embedding bags (sum, mean, max, per-sample weights), pairwise "
         "dot interactions, MLPs", DLRM, dlrm_inputs, grad=True),
]
