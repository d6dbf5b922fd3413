"""Real models from kornia for the real-world ground truth (benchmarks/realworld/README.md).

Each factory builds one model from its config with random weights (no download) and returns five input
sets that differ as deployment inputs do (batch size, resolution or length, values).
"""

LIBRARY = "kornia"   # the pip distribution name
PACKAGE = "kornia"   # the import package whose files count as the library's


def make_loftr():
    """kornia.feature.LoFTR (coarse-to-fine matcher), random weights: same-size and mixed-size pairs, batch 1 and 2."""
    import torch
    from kornia.feature import LoFTR

    torch.manual_seed(0)
    model = LoFTR(pretrained=None).eval()

    def pair(b, h0, w0, h1, w1, scale=1.0):
        return ({"image0": torch.rand(b, 1, h0, w0) * scale, "image1": torch.rand(b, 1, h1, w1) * scale},)

    inputs = [
        pair(1, 64, 64, 64, 64),
        pair(2, 64, 64, 64, 64),
        pair(1, 64, 64, 48, 80),
        pair(1, 64, 64, 64, 64, scale=2.0),
        pair(2, 64, 64, 64, 64, scale=0.5),
    ]
    return {"model": model, "inputs": inputs}


def make_sold2_detector():
    """kornia.feature.SOLD2_detector (hourglass line-segment detector with junction/heatmap post-processing)."""
    import torch
    from kornia.feature import SOLD2_detector
    from kornia.feature.sold2.structures import DetectorCfg, LineDetectorCfg

    torch.manual_seed(0)
    # a small junction budget and line sampling, and no per-segment junction refinement loop, keep the
    # random-weight post-processing (O(junctions^2) line candidates) cheap
    config = DetectorCfg(
        max_num_junctions=16, line_detector_cfg=LineDetectorCfg(num_samples=16, use_junction_refinement=False)
    )
    model = SOLD2_detector(pretrained=False, config=config).eval()
    inputs = [
        (torch.rand(1, 1, 64, 64),),
        (torch.rand(2, 1, 64, 64),),
        (torch.rand(1, 1, 64, 128),),
        (torch.rand(1, 1, 64, 64) * 0.5,),
        (torch.rand(2, 1, 64, 64) * 2.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_disk():
    """kornia.feature.DISK (U-Net keypoint detector/descriptor with NMS): sizes, batch and keypoint budget n."""
    import torch
    from kornia.feature import DISK

    torch.manual_seed(0)
    model = DISK(desc_dim=128).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64), 64),
        (torch.rand(1, 3, 64, 96), 128, 5, 0.0),
        (torch.rand(1, 3, 48, 48), None, 3),
        (torch.rand(2, 3, 56, 72), 32, 5, 0.0, True),
    ]
    return {"model": model, "inputs": inputs}


def make_hardnet():
    """kornia.feature.HardNet (patch descriptor CNN): 32x32 grayscale patches, batch varies."""
    import torch
    from kornia.feature import HardNet

    torch.manual_seed(0)
    model = HardNet(pretrained=False).eval()
    inputs = [(torch.rand(b, 1, 32, 32) * s,) for b, s in [(4, 1.0), (1, 1.0), (2, 0.5), (16, 1.0), (8, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_hynet():
    """kornia.feature.HyNet (patch descriptor with FRN/TLU normalisation): 32x32 patches."""
    import torch
    from kornia.feature import HyNet

    torch.manual_seed(0)
    model = HyNet(pretrained=False).eval()
    inputs = [(torch.rand(b, 1, 32, 32) * s,) for b, s in [(4, 1.0), (1, 1.0), (2, 0.5), (16, 1.0), (8, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_sosnet():
    """kornia.feature.SOSNet (patch descriptor): 32x32 patches, batch varies."""
    import torch
    from kornia.feature import SOSNet

    torch.manual_seed(0)
    model = SOSNet(pretrained=False).eval()
    inputs = [(torch.rand(b, 1, 32, 32) * s,) for b, s in [(4, 1.0), (1, 1.0), (2, 0.5), (16, 1.0), (8, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_tfeat():
    """kornia.feature.TFeat (shallow triplet patch descriptor): 32x32 patches, batch varies."""
    import torch
    from kornia.feature import TFeat

    torch.manual_seed(0)
    model = TFeat(pretrained=False).eval()
    inputs = [(torch.rand(b, 1, 32, 32) * s,) for b, s in [(4, 1.0), (1, 1.0), (2, 0.5), (16, 1.0), (8, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_keynet():
    """kornia.feature.KeyNet (handcrafted + learned multi-scale keypoint response): grayscale images."""
    import torch
    from kornia.feature import KeyNet

    torch.manual_seed(0)
    model = KeyNet(pretrained=False).eval()
    inputs = [
        (torch.rand(1, 1, 64, 64),),
        (torch.rand(2, 1, 64, 64),),
        (torch.rand(1, 1, 48, 80),),
        (torch.rand(1, 1, 96, 96) * 0.5,),
        (torch.rand(4, 1, 32, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_keynet_affnet_hardnet():
    """kornia.feature.LocalFeature: KeyNetDetector + OriNet + AffNet + LAFDescriptor(HardNet), random; batch 1 only."""
    import torch
    from kornia.feature import (
        HardNet,
        KeyNetDetector,
        LAFAffNetShapeEstimator,
        LAFDescriptor,
        LAFOrienter,
        LocalFeature,
        OriNet,
    )

    from kornia.feature.keynet import keynet_default_config

    torch.manual_seed(0)
    # two pyramid levels (no upscaled one) instead of the default six keep the traced pipeline small
    keynet_conf = {**keynet_default_config, "Detector_conf": {**keynet_default_config["Detector_conf"],
                                                              "pyramid_levels": 1, "up_levels": 0}}
    detector = KeyNetDetector(
        False,
        num_features=32,
        keynet_conf=keynet_conf,
        ori_module=LAFOrienter(angle_detector=OriNet(False)),
        aff_module=LAFAffNetShapeEstimator(False, preserve_orientation=False),
    )
    descriptor = LAFDescriptor(HardNet(False), patch_size=32, grayscale_descriptor=True)
    model = LocalFeature(detector, descriptor).eval()
    inputs = [
        (torch.rand(1, 1, 64, 64),),
        (torch.rand(1, 1, 64, 96),),
        (torch.rand(1, 1, 32, 48),),
        (torch.rand(1, 1, 80, 80) * 0.5,),
        (torch.rand(1, 1, 48, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_xfeat_backbone():
    """kornia.feature.XFeatModel (lightweight XFeat backbone: descriptors, keypoint logits, heatmap)."""
    import torch
    from kornia.feature import XFeatModel

    torch.manual_seed(0)
    model = XFeatModel().eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 64, 96),),
        (torch.rand(1, 1, 96, 96),),
        (torch.rand(4, 3, 32, 64) * 255.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_aliked():
    """kornia.feature.ALIKED (deformable-conv detector/descriptor with DKD keypoint extraction)."""
    import torch
    from kornia.feature import ALIKED

    torch.manual_seed(0)
    model = ALIKED("aliked-t16", max_num_keypoints=64, detection_threshold=0.0).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(3, 3, 64, 64) * 0.5,),
        (torch.rand(2, 3, 64, 64) * 2.0,),
        (torch.rand(1, 3, 64, 96),),
    ]
    return {"model": model, "inputs": inputs}


def make_dedode():
    """kornia.feature.DeDoDe (VGG19 detector L + descriptor B, top-n keypoints and sampled descriptors)."""
    import torch
    from kornia.feature import DeDoDe

    torch.manual_seed(0)
    model = DeDoDe(detector_model="L", descriptor_model="B").eval()
    inputs = [
        (torch.rand(1, 3, 56, 56), 64),
        (torch.rand(2, 3, 56, 56), 64),
        (torch.rand(1, 3, 56, 84), 64),
        (torch.rand(1, 3, 56, 56) * 0.5, 64),
        (torch.rand(2, 3, 56, 56) * 2.0, 64),
    ]
    return {"model": model, "inputs": inputs}


def make_lightglue():
    """kornia.feature.LightGlue (attention matcher with early stopping) from default_conf, random weights."""
    import torch
    from kornia.feature import LightGlue

    torch.manual_seed(0)
    model = LightGlue(features=None, input_dim=64, descriptor_dim=64, n_layers=3, num_heads=2, flash=False).eval()

    def pair(b, m, n, h, w):
        wh = torch.tensor([w - 1.0, h - 1.0])
        return ({
            "image0": {"keypoints": torch.rand(b, m, 2) * wh, "descriptors": torch.randn(b, m, 64),
                       "image_size": torch.tensor([[w, h]] * b, dtype=torch.float32)},
            "image1": {"keypoints": torch.rand(b, n, 2) * wh, "descriptors": torch.randn(b, n, 64),
                       "image_size": torch.tensor([[w, h]] * b, dtype=torch.float32)},
        },)

    inputs = [pair(1, 32, 32, 64, 64), pair(2, 32, 32, 64, 64), pair(1, 48, 24, 96, 64),
              pair(1, 16, 64, 64, 64), pair(4, 20, 20, 48, 48)]
    return {"model": model, "inputs": inputs}


def make_sift_feature():
    """kornia.feature.SIFTFeature (DoG scale space detector + orientation + SIFT descriptor pipeline); batch 1 only."""
    import torch
    from kornia.feature import SIFTFeature

    torch.manual_seed(0)
    model = SIFTFeature(num_features=64).eval()
    inputs = [
        (torch.rand(1, 1, 64, 64),),
        (torch.rand(1, 1, 64, 96),),
        (torch.rand(1, 1, 64, 64) * 0.5,),
        (torch.rand(1, 1, 96, 64),),
        (torch.rand(1, 1, 96, 64) * 2.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_dexined():
    """kornia.models.DexiNed (dense extreme-inception edge detector): RGB images of several sizes."""
    import torch
    from kornia.models.dexined import DexiNed

    torch.manual_seed(0)
    model = DexiNed(pretrained=False).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 48, 80),),
        (torch.rand(1, 3, 32, 32) * 255.0,),
        (torch.rand(1, 3, 72, 56),),
    ]
    return {"model": model, "inputs": inputs}


def make_rrdbnet():
    """kornia.models.RRDBNet (ESRGAN residual-in-residual dense super-resolution), tiny config, x4."""
    import torch
    from kornia.models import RRDBNet

    torch.manual_seed(0)
    model = RRDBNet(3, 3, scale=4, num_feat=16, num_block=2, num_grow_ch=8).eval()
    inputs = [
        (torch.rand(1, 3, 16, 16),),
        (torch.rand(2, 3, 16, 16),),
        (torch.rand(1, 3, 24, 32),),
        (torch.rand(1, 3, 32, 32) * 0.5,),
        (torch.rand(4, 3, 12, 12),),
    ]
    return {"model": model, "inputs": inputs}


def make_small_sr():
    """kornia.models.SmallSRNet (sub-pixel convolution super-resolution), x3 on the luminance channel."""
    import torch
    from kornia.models.small_sr import SmallSRNet

    torch.manual_seed(0)
    model = SmallSRNet(upscale_factor=3, pretrained=False).eval()
    inputs = [
        (torch.rand(1, 1, 32, 32),),
        (torch.rand(2, 1, 32, 32),),
        (torch.rand(1, 1, 24, 40),),
        (torch.rand(1, 1, 48, 48) * 0.5,),
        (torch.rand(4, 1, 16, 16),),
    ]
    return {"model": model, "inputs": inputs}


def make_tiny_vit():
    """kornia.models.TinyViT (hierarchical windowed-attention ViT), tiny config at fixed 64x64 input."""
    import torch
    from kornia.models.tiny_vit import TinyViT

    torch.manual_seed(0)
    model = TinyViT(
        img_size=64, num_classes=10, embed_dims=(16, 32, 48, 64), depths=(1, 1, 1, 1),
        num_heads=(1, 2, 3, 4), window_sizes=(2, 2, 2, 2),
    ).eval()
    inputs = [(torch.rand(b, 3, 64, 64) * s,) for b, s in [(1, 1.0), (2, 1.0), (4, 1.0), (1, 0.5), (3, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_vit():
    """kornia.models.VisionTransformer (patch embedding + transformer encoder), tiny config at 32x32."""
    import torch
    from kornia.models.vit import VisionTransformer

    torch.manual_seed(0)
    model = VisionTransformer(image_size=32, patch_size=8, in_channels=3, embed_dim=32, depth=2, num_heads=2).eval()
    inputs = [(torch.rand(b, 3, 32, 32) * s,) for b, s in [(1, 1.0), (2, 1.0), (4, 1.0), (1, 0.5), (8, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_mobilevit():
    """kornia.models.MobileViT xxs (MobileNetV2 blocks + unfolded-patch transformers) at 64x64."""
    import torch
    from kornia.models.vit_mobile import MobileViT

    torch.manual_seed(0)
    model = MobileViT(mode="xxs").eval()
    # fixed 64x64 resolution: with dynamic H and W, dynamo's symbolic reshapes of the unfolded patches take minutes
    inputs = [(torch.rand(b, 3, 64, 64) * s,) for b, s in [(1, 1.0), (2, 1.0), (4, 1.0), (1, 0.5), (3, 2.0)]]
    return {"model": model, "inputs": inputs}


def make_yunet():
    """kornia.models YuNet (lightweight face detector, test phase): multi-scale heads on RGB images."""
    import torch
    from kornia.models.yunet.model import YuNet

    torch.manual_seed(0)
    model = YuNet(phase="test", pretrained=False).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 64, 96),),
        (torch.rand(1, 3, 96, 96) * 255.0,),
        (torch.rand(4, 3, 64, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_rtdetr():
    """kornia.models RT-DETR (ResNetD-18 + hybrid encoder + deformable DETR decoder), few queries and layers."""
    import torch
    from kornia.models.rt_detr.model import RTDETR, RTDETRConfig

    torch.manual_seed(0)
    config = RTDETRConfig("resnet18d", num_classes=10, input_size=64, head_num_queries=20,
                          head_num_decoder_layers=2)
    model = RTDETR.from_config(config).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 64, 96),),
        (torch.rand(1, 3, 64, 64) * 0.5,),
        (torch.rand(2, 3, 64, 64) * 2.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_efficientvit_b0():
    """kornia.models EfficientViTBackbone b0 (ReLU linear attention + MBConv stages), random init."""
    import torch
    from kornia.models.efficient_vit.backbone import efficientvit_backbone_b0

    torch.manual_seed(0)
    model = efficientvit_backbone_b0().eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 64, 96),),
        (torch.rand(1, 3, 96, 96) * 0.5,),
        (torch.rand(4, 3, 32, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_canny():
    """kornia.filters.Canny (Gaussian blur, Sobel, NMS, hysteresis): classical edge pipeline on RGB images."""
    import torch
    from kornia.filters import Canny

    torch.manual_seed(0)
    model = Canny(low_threshold=0.1, high_threshold=0.2).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 48, 80),),
        (torch.rand(1, 1, 96, 96) * 0.5,),
        (torch.rand(4, 3, 32, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_augmentation_preprocess():
    """kornia.augmentation.AugmentationSequential of deterministic Resize, CenterCrop and Normalize (preprocessing)."""
    import torch
    import kornia.augmentation as K

    torch.manual_seed(0)
    model = K.AugmentationSequential(
        K.Resize((48, 48)),
        K.CenterCrop(32),
        K.Normalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225])),
    ).eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(1, 3, 48, 80),),
        (torch.rand(4, 3, 96, 96) * 0.5,),
        (torch.rand(2, 3, 40, 56),),
    ]
    return {"model": model, "inputs": inputs}
