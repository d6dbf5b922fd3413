"""Real models from MONAI for the real-world ground truth (benchmarks/realworld/README.md).

Each factory builds one model from its config with random weights (no download) and returns five input
sets that differ as deployment inputs do (batch size, resolution or length, values).
"""

LIBRARY = "monai"   # the pip distribution name
PACKAGE = "monai"   # the import package whose files count as the library's


def make_unet():
    """monai.networks.nets.UNet (2-D segmentation, residual units): batch 1/2/4 at 32, 48 and 64 pixels."""
    import torch
    from monai.networks.nets import UNet

    torch.manual_seed(0)
    model = UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2),
                 num_res_units=1).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 48, 32),),
        (torch.rand(2, 1, 64, 48) * 10.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_basic_unet():
    """monai.networks.nets.BasicUNet (2-D, four poolings): batch 1/2/3 at 16 to 64 pixels."""
    import torch
    from monai.networks.nets import BasicUNet

    torch.manual_seed(0)
    model = BasicUNet(spatial_dims=2, in_channels=3, out_channels=2, features=(4, 4, 8, 8, 16, 4)).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(3, 3, 16, 48),),
        (torch.rand(2, 3, 48, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_basic_unet_plus_plus():
    """monai.networks.nets.BasicUNetPlusPlus (2-D nested UNet++, deep supervision list output): batch 1/2."""
    import torch
    from monai.networks.nets import BasicUNetPlusPlus

    torch.manual_seed(0)
    model = BasicUNetPlusPlus(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 8, 16, 4),
                              deep_supervision=True).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 48),),
        (torch.randn(2, 1, 32, 48),),
        (torch.rand(1, 1, 48, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_segresnet():
    """monai.networks.nets.SegResNet (2-D, group norm): batch 1/2/4 at 16 to 64 pixels."""
    import torch
    from monai.networks.nets import SegResNet

    torch.manual_seed(0)
    model = SegResNet(spatial_dims=2, init_filters=8, in_channels=2, out_channels=3, blocks_down=(1, 1, 1),
                      blocks_up=(1, 1), num_groups=4).eval()
    inputs = [
        (torch.randn(1, 2, 32, 32),),
        (torch.randn(2, 2, 32, 32),),
        (torch.randn(1, 2, 64, 64),),
        (torch.randn(4, 2, 16, 32),),
        (torch.rand(2, 2, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_segresnet_ds():
    """monai.networks.nets.SegResNetDS (2-D, deep supervision depth 2, list output): batch 1/2 at 32 and 64."""
    import torch
    from monai.networks.nets import SegResNetDS

    torch.manual_seed(0)
    model = SegResNetDS(spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1),
                        dsdepth=2).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(2, 1, 32, 64),),
        (torch.rand(1, 1, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_dynunet():
    """monai.networks.nets.DynUNet (nnU-Net style, 2-D, residual blocks): batch 1/2/4 at 16 to 64 pixels."""
    import torch
    from monai.networks.nets import DynUNet

    torch.manual_seed(0)
    model = DynUNet(spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3, 3],
                    strides=[1, 2, 2, 2], upsample_kernel_size=[2, 2, 2], filters=[4, 8, 16, 32],
                    res_block=True).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 16, 48),),
        (torch.rand(2, 1, 48, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_dynunet_3d():
    """monai.networks.nets.DynUNet (3-D, anisotropic strides): batch 1/2 at 16^3 and 32x16x16 voxels."""
    import torch
    from monai.networks.nets import DynUNet

    torch.manual_seed(0)
    model = DynUNet(spatial_dims=3, in_channels=1, out_channels=2, kernel_size=[3, 3, 3],
                    strides=[1, 2, (2, 2, 1)], upsample_kernel_size=[2, (2, 2, 1)], filters=[4, 8, 16]).eval()
    inputs = [
        (torch.randn(1, 1, 16, 16, 16),),
        (torch.randn(2, 1, 16, 16, 16),),
        (torch.randn(1, 1, 32, 16, 16),),
        (torch.randn(1, 1, 16, 32, 8),),
        (torch.rand(2, 1, 16, 16, 8),),
    ]
    return {"model": model, "inputs": inputs}


def make_attention_unet():
    """monai.networks.nets.AttentionUnet (2-D, attention gates): batch 1/2/3 at 32 and 64 pixels."""
    import torch
    from monai.networks.nets import AttentionUnet

    torch.manual_seed(0)
    model = AttentionUnet(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2)).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(3, 1, 32, 64),),
        (torch.rand(2, 1, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_vnet():
    """monai.networks.nets.VNet (3-D, fixed widths 16..256): batch 1/2 at 16^3 and 32x16x16 voxels."""
    import torch
    from monai.networks.nets import VNet

    torch.manual_seed(0)
    model = VNet(spatial_dims=3, in_channels=1, out_channels=2).eval()
    inputs = [
        (torch.randn(1, 1, 16, 16, 16),),
        (torch.randn(2, 1, 16, 16, 16),),
        (torch.randn(1, 1, 32, 16, 16),),
        (torch.randn(1, 1, 16, 32, 16),),
        (torch.rand(1, 1, 16, 16, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_densenet():
    """monai.networks.nets.DenseNet (2-D classifier, small blocks): batch 1/2/4 at 32 to 64 pixels."""
    import torch
    from monai.networks.nets import DenseNet

    torch.manual_seed(0)
    model = DenseNet(spatial_dims=2, in_channels=1, out_channels=3, init_features=8, growth_rate=4,
                     block_config=(2, 2, 2), bn_size=2).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 48, 32),),
        (torch.rand(2, 1, 64, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_autoencoder():
    """monai.networks.nets.AutoEncoder (2-D, residual units, intermediate dilated layers): batch 1/2/4."""
    import torch
    from monai.networks.nets import AutoEncoder

    torch.manual_seed(0)
    model = AutoEncoder(spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8, 16), strides=(2, 2, 2),
                        num_res_units=1, inter_channels=[8, 8], inter_dilations=[1, 2]).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 16, 32),),
        (torch.rand(2, 1, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_var_autoencoder():
    """monai.networks.nets.VarAutoEncoder (2-D, fixed in_shape 32x32, eval returns mu+std, no sampling)."""
    import torch
    from monai.networks.nets import VarAutoEncoder

    torch.manual_seed(0)
    model = VarAutoEncoder(spatial_dims=2, in_shape=(1, 32, 32), out_channels=1, latent_size=8, channels=(4, 8),
                           strides=(2, 2)).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(4, 1, 32, 32),),
        (torch.rand(1, 1, 32, 32),),
        (torch.randn(3, 1, 32, 32) * 2.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_highresnet():
    """monai.networks.nets.HighResNet (2-D dilated residual stack, channel padding): batch 1/2/4."""
    import torch
    from monai.networks.nets import HighResNet

    torch.manual_seed(0)
    layer_params = (
        {"name": "conv_0", "n_features": 4, "kernel_size": 3},
        {"name": "res_1", "n_features": 4, "kernels": (3, 3), "repeat": 1},
        {"name": "res_2", "n_features": 8, "kernels": (3, 3), "repeat": 1},
        {"name": "res_3", "n_features": 16, "kernels": (3, 3), "repeat": 1},
        {"name": "conv_1", "n_features": 16, "kernel_size": 1},
        {"name": "conv_2", "kernel_size": 1},
    )
    model = HighResNet(spatial_dims=2, in_channels=1, out_channels=3, layer_params=layer_params).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 24, 40),),
        (torch.rand(2, 1, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_resnet():
    """monai.networks.nets.ResNet (basic blocks, 3-D classifier): batch 1/2 at 16^3 to 32x32x16 voxels."""
    import torch
    from monai.networks.nets import ResNet

    torch.manual_seed(0)
    model = ResNet(block="basic", layers=[1, 1, 1, 1], block_inplanes=[4, 8, 16, 32], spatial_dims=3,
                   n_input_channels=1, num_classes=3).eval()
    inputs = [
        (torch.randn(1, 1, 16, 16, 16),),
        (torch.randn(2, 1, 16, 16, 16),),
        (torch.randn(1, 1, 32, 32, 16),),
        (torch.randn(2, 1, 16, 32, 24),),
        (torch.rand(1, 1, 24, 24, 24),),
    ]
    return {"model": model, "inputs": inputs}


def make_mednext():
    """monai.networks.nets.MedNeXt (2-D ConvNeXt-style UNet, residual connections): batch 1/2 at 16 to 64."""
    import torch
    from monai.networks.nets import MedNeXt

    torch.manual_seed(0)
    model = MedNeXt(spatial_dims=2, init_filters=4, in_channels=1, out_channels=2, kernel_size=3,
                    use_residual_connection=True, blocks_down=(1, 1, 1, 1), blocks_bottleneck=1,
                    blocks_up=(1, 1, 1, 1)).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(2, 1, 16, 48),),
        (torch.rand(1, 1, 48, 32),),
    ]
    return {"model": model, "inputs": inputs}


def make_efficientnet_b0():
    """monai.networks.nets.EfficientNetBN efficientnet-b0 (2-D, random weights, pretrained=False)."""
    import torch
    from monai.networks.nets import EfficientNetBN

    torch.manual_seed(0)
    model = EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=2, in_channels=3, num_classes=4).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(2, 3, 48, 64),),
        (torch.rand(1, 3, 40, 40),),
    ]
    return {"model": model, "inputs": inputs}


def make_local_net():
    """monai.networks.nets.LocalNet (2-D registration DDF head, additive upsampling): batch 1/2/4."""
    import torch
    from monai.networks.nets import LocalNet

    torch.manual_seed(0)
    model = LocalNet(spatial_dims=2, in_channels=2, num_channel_initial=4, extract_levels=(0, 1, 2),
                     out_channels=2).eval()
    inputs = [
        (torch.randn(1, 2, 32, 32),),
        (torch.randn(2, 2, 32, 32),),
        (torch.randn(1, 2, 64, 64),),
        (torch.randn(4, 2, 16, 32),),
        (torch.rand(2, 2, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_senet():
    """monai.networks.nets.SENet (2-D SE-ResNeXt bottlenecks, tiny widths): batch 1/2/4 at 32 to 64 pixels."""
    import torch
    from monai.networks.nets import SENet

    torch.manual_seed(0)
    model = SENet(spatial_dims=2, in_channels=3, block="se_resnetxt_bottleneck", layers=(1, 1, 1, 1), groups=4,
                  reduction=4, inplanes=16, input_3x3=False, downsample_kernel_size=1, num_classes=5).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(4, 3, 32, 48),),
        (torch.rand(2, 3, 64, 40),),
    ]
    return {"model": model, "inputs": inputs}


def make_global_net():
    """monai.networks.nets.GlobalNet (2-D affine registration, builds a warp grid; fixed image_size 32)."""
    import torch
    from monai.networks.nets import GlobalNet

    torch.manual_seed(0)
    model = GlobalNet(image_size=[32, 32], spatial_dims=2, in_channels=2, num_channel_initial=4, depth=2).eval()
    inputs = [
        (torch.randn(1, 2, 32, 32),),
        (torch.randn(2, 2, 32, 32),),
        (torch.randn(4, 2, 32, 32),),
        (torch.rand(1, 2, 32, 32),),
        (torch.randn(3, 2, 32, 32) * 2.0,),
    ]
    return {"model": model, "inputs": inputs}


def make_vqvae():
    """monai.networks.nets.VQVAE (2-D, EMA vector quantizer; returns (reconstruction, quantization loss))."""
    import torch
    from monai.networks.nets import VQVAE

    torch.manual_seed(0)
    model = VQVAE(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 16), num_res_layers=1,
                  num_res_channels=(8, 16), downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)),
                  upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)), num_embeddings=16,
                  embedding_dim=8).eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 16, 32),),
        (torch.rand(2, 1, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_patch_discriminator():
    """monai.networks.nets.PatchDiscriminator (2-D PatchGAN, list of intermediate outputs): batch 1/2/4."""
    import torch
    from monai.networks.nets import PatchDiscriminator

    torch.manual_seed(0)
    model = PatchDiscriminator(spatial_dims=2, channels=8, in_channels=3, num_layers_d=3).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(4, 3, 48, 32),),
        (torch.rand(2, 3, 64, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_quicknat():
    """monai.networks.nets.Quicknat (2-D dense-block UNet with max-unpooling; no SE: its package is absent)."""
    import torch
    from monai.networks.nets import Quicknat

    torch.manual_seed(0)
    model = Quicknat(num_classes=3, num_channels=1, num_filters=8, kernel_size=3, se_block="None").eval()
    inputs = [
        (torch.randn(1, 1, 32, 32),),
        (torch.randn(2, 1, 32, 32),),
        (torch.randn(1, 1, 64, 64),),
        (torch.randn(4, 1, 32, 48),),
        (torch.rand(2, 1, 48, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_generator():
    """monai.networks.nets.Generator (latent vector to 2-D image via transposed convs): batch 1/2/4/8."""
    import torch
    from monai.networks.nets import Generator

    torch.manual_seed(0)
    model = Generator(latent_shape=(16,), start_shape=(8, 4, 4), channels=(8, 4, 1), strides=(2, 2, 2),
                      num_res_units=1).eval()
    inputs = [
        (torch.randn(1, 16),),
        (torch.randn(2, 16),),
        (torch.randn(4, 16),),
        (torch.randn(8, 16) * 3.0,),
        (torch.rand(3, 16),),
    ]
    return {"model": model, "inputs": inputs}
