"""Real models from diffusers for the real-world ground truth (benchmarks/realworld/README.md).

Each factory builds one model from its config with random weights (no download) and returns five input
sets that differ as deployment inputs do (batch size, resolution or length, values).
"""

LIBRARY = "diffusers"   # the pip distribution name
PACKAGE = "diffusers"   # the import package whose files count as the library's


def make_unet2d():
    """diffusers.UNet2DModel (DDPM-style pixel denoiser): batch 1/2/4, 16 to 64 pixels, int and tensor timesteps."""
    import torch
    from diffusers import UNet2DModel

    torch.manual_seed(0)
    model = UNet2DModel(
        sample_size=32, in_channels=3, out_channels=3,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        block_out_channels=(32, 64), layers_per_block=1, attention_head_dim=8, norm_num_groups=32,
    ).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32), 10),
        (torch.randn(2, 3, 32, 32), torch.tensor(500)),
        (torch.randn(4, 3, 16, 16), torch.tensor([1, 250, 500, 999])),
        (torch.randn(1, 3, 64, 64), 999),
        (torch.randn(2, 3, 48, 48), torch.tensor([3, 700])),
    ]
    return {"model": model, "inputs": inputs}


def make_unet2d_condition():
    """diffusers.UNet2DConditionModel (Stable-Diffusion-style latent UNet, cross-attention): batch, latent size, text length, timesteps vary."""
    import torch
    from diffusers import UNet2DConditionModel

    torch.manual_seed(0)
    model = UNet2DConditionModel(
        sample_size=16, in_channels=4, out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        block_out_channels=(32, 64), layers_per_block=1, cross_attention_dim=32, attention_head_dim=8,
        norm_num_groups=32,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 16, 16), 10, torch.randn(1, 8, 32)),
        (torch.randn(2, 4, 16, 16), torch.tensor(500), torch.randn(2, 8, 32)),
        (torch.randn(4, 4, 8, 8), torch.tensor([1, 250, 500, 999]), torch.randn(4, 12, 32)),
        (torch.randn(1, 4, 32, 32), 999, torch.randn(1, 16, 32)),
        (torch.randn(2, 4, 24, 24), torch.tensor([3, 700]), torch.randn(2, 8, 32)),
    ]
    return {"model": model, "inputs": inputs}


def make_controlnet():
    """diffusers.ControlNetModel (SD ControlNet branch, pixel-space conditioning image at 2x the latent size)."""
    import torch
    from diffusers import ControlNetModel

    torch.manual_seed(0)
    model = ControlNetModel(
        in_channels=4, conditioning_channels=3,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        block_out_channels=(32, 64), layers_per_block=1, cross_attention_dim=32, attention_head_dim=8,
        norm_num_groups=32, conditioning_embedding_out_channels=(16, 32),
    ).eval()
    inputs = [
        (torch.randn(1, 4, 16, 16), 10, torch.randn(1, 8, 32), torch.rand(1, 3, 32, 32)),
        (torch.randn(2, 4, 16, 16), torch.tensor(500), torch.randn(2, 8, 32), torch.rand(2, 3, 32, 32)),
        (torch.randn(4, 4, 8, 8), torch.tensor([1, 250, 500, 999]), torch.randn(4, 12, 32), torch.rand(4, 3, 16, 16)),
        (torch.randn(1, 4, 32, 32), 999, torch.randn(1, 16, 32), torch.rand(1, 3, 64, 64)),
        (torch.randn(2, 4, 24, 24), torch.tensor([3, 700]), torch.randn(2, 8, 32), torch.rand(2, 3, 48, 48)),
    ]
    return {"model": model, "inputs": inputs}


def make_unet3d_condition():
    """diffusers.UNet3DConditionModel (text-to-video UNet, temporal convs and attention): batch, frames, size, text length, timesteps vary."""
    import torch
    from diffusers import UNet3DConditionModel

    torch.manual_seed(0)
    model = UNet3DConditionModel(
        sample_size=16, in_channels=4, out_channels=4,
        down_block_types=("CrossAttnDownBlock3D",), up_block_types=("CrossAttnUpBlock3D",),
        block_out_channels=(32,), layers_per_block=1, cross_attention_dim=32, attention_head_dim=8,
        norm_num_groups=32,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 2, 16, 16), torch.tensor([10]), torch.randn(1, 8, 32)),
        (torch.randn(2, 4, 3, 24, 24), torch.tensor([500, 500]), torch.randn(2, 12, 32)),
        (torch.randn(4, 4, 2, 8, 8), torch.tensor([1, 250, 500, 999]), torch.randn(4, 8, 32)),
        (torch.randn(1, 4, 4, 16, 16), torch.tensor([999]), torch.randn(1, 16, 32)),
        (torch.randn(2, 4, 2, 32, 32), torch.tensor([3, 700]), torch.randn(2, 8, 32)),
    ]
    return {"model": model, "inputs": inputs}


def make_unet_spatio_temporal():
    """diffusers.UNetSpatioTemporalConditionModel (Stable Video Diffusion UNet): batch, frames, size, timesteps, added time ids vary."""
    import torch
    from diffusers import UNetSpatioTemporalConditionModel

    torch.manual_seed(0)
    model = UNetSpatioTemporalConditionModel(
        sample_size=16, in_channels=8, out_channels=4,
        down_block_types=("CrossAttnDownBlockSpatioTemporal",), up_block_types=("CrossAttnUpBlockSpatioTemporal",),
        block_out_channels=(32,), addition_time_embed_dim=32, projection_class_embeddings_input_dim=96,
        layers_per_block=1, cross_attention_dim=32, num_attention_heads=(4,), num_frames=2,
    ).eval()
    inputs = [
        (torch.randn(1, 2, 8, 16, 16), torch.tensor([10.0]), torch.randn(1, 1, 32), torch.tensor([[6.0, 127.0, 0.02]])),
        (torch.randn(2, 3, 8, 24, 24), torch.tensor([500.0, 500.0]), torch.randn(2, 1, 32), torch.tensor([[6.0, 127.0, 0.02]] * 2)),
        (torch.randn(4, 2, 8, 8, 8), torch.tensor([0.5, 1.0, 2.0, 3.0]), torch.randn(4, 1, 32), torch.tensor([[7.0, 60.0, 0.1]] * 4)),
        (torch.randn(1, 4, 8, 16, 16), torch.tensor([999.0]), torch.randn(1, 1, 32), torch.tensor([[25.0, 200.0, 0.0]])),
        (torch.randn(2, 2, 8, 32, 32), torch.tensor([3.0, 700.0]), torch.randn(2, 1, 32), torch.tensor([[6.0, 127.0, 0.02], [8.0, 90.0, 0.05]])),
    ]
    return {"model": model, "inputs": inputs}


def make_unet1d_planner():
    """diffusers.UNet1DModel in its Janner-et-al. planning configuration (temporal ResNet blocks over a trajectory)."""
    import torch
    from diffusers import UNet1DModel

    torch.manual_seed(0)
    model = UNet1DModel(
        sample_size=32, in_channels=14, out_channels=14, extra_in_channels=0,
        time_embedding_type="positional", use_timestep_embedding=True, flip_sin_to_cos=False, freq_shift=1,
        down_block_types=("DownResnetBlock1D", "DownResnetBlock1D", "DownResnetBlock1D"),
        up_block_types=("UpResnetBlock1D", "UpResnetBlock1D"),
        mid_block_type="MidResTemporalBlock1D", out_block_type="OutConv1DBlock",
        block_out_channels=(32, 64, 128), act_fn="mish", norm_num_groups=8, layers_per_block=1,
        downsample_each_block=False,
    ).eval()
    inputs = [
        (torch.randn(1, 14, 32), 10),
        (torch.randn(2, 14, 32), torch.tensor(50)),
        (torch.randn(4, 14, 16), torch.tensor([1, 20, 40, 99])),
        (torch.randn(1, 14, 64), 0),
        (torch.randn(2, 14, 128), torch.tensor([3, 70])),
    ]
    return {"model": model, "inputs": inputs}


def make_unet1d_audio():
    """diffusers.UNet1DModel in its Dance-Diffusion audio configuration (Fourier time features, 1-D attention)."""
    import torch
    from diffusers import UNet1DModel

    torch.manual_seed(0)
    model = UNet1DModel(
        sample_size=512, in_channels=2, out_channels=2, extra_in_channels=16,
        time_embedding_type="fourier", time_embedding_dim=16, use_timestep_embedding=False, flip_sin_to_cos=True,
        down_block_types=("DownBlock1DNoSkip", "DownBlock1D", "AttnDownBlock1D"),
        up_block_types=("AttnUpBlock1D", "UpBlock1D", "UpBlock1DNoSkip"),
        mid_block_type="UNetMidBlock1D", block_out_channels=(32, 32, 64), norm_num_groups=8,
    ).eval()
    inputs = [
        (torch.randn(1, 2, 512), torch.tensor([0.5])),
        (torch.randn(2, 2, 512), torch.tensor(0.9)),
        (torch.randn(4, 2, 256), torch.tensor([0.1, 0.3, 0.6, 1.0])),
        (torch.randn(1, 2, 1024), 1),
        (torch.randn(2, 2, 384), torch.tensor([0.05, 0.75])),
    ]
    return {"model": model, "inputs": inputs}


def make_autoencoder_kl():
    """diffusers.AutoencoderKL (SD VAE, encode then decode the posterior mode): batch 1/2/4, 16 to 64 pixels."""
    import torch
    from diffusers import AutoencoderKL

    torch.manual_seed(0)
    model = AutoencoderKL(
        in_channels=3, out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        block_out_channels=(32, 64), layers_per_block=1, latent_channels=4, norm_num_groups=32, sample_size=32,
    ).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32), False),
        (torch.randn(2, 3, 32, 32), False),
        (torch.randn(4, 3, 16, 16), False),
        (torch.randn(1, 3, 64, 64), False),
        (torch.randn(2, 3, 48, 48), False),
    ]
    return {"model": model, "inputs": inputs}


def make_vq_model():
    """diffusers.VQModel (VQ-GAN autoencoder with codebook lookup): batch 1/2/4, 16 to 64 pixels."""
    import torch
    from diffusers import VQModel

    torch.manual_seed(0)
    model = VQModel(
        in_channels=3, out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        block_out_channels=(32, 64), layers_per_block=1, latent_channels=3, num_vq_embeddings=64,
        norm_num_groups=32, sample_size=32,
    ).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(4, 3, 16, 16),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(2, 3, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_autoencoder_tiny():
    """diffusers.AutoencoderTiny (TAESD; encode, 8-bit latent quantize, decode): batch 1/2/4, 32 to 96 pixels."""
    import torch
    from diffusers import AutoencoderTiny

    torch.manual_seed(0)
    model = AutoencoderTiny(
        encoder_block_out_channels=(16, 16, 16, 16), decoder_block_out_channels=(16, 16, 16, 16),
        num_encoder_blocks=(1, 1, 1, 1), num_decoder_blocks=(1, 1, 1, 1), latent_channels=4,
    ).eval()
    inputs = [
        (torch.rand(1, 3, 32, 32) * 2 - 1,),
        (torch.rand(2, 3, 32, 32) * 2 - 1,),
        (torch.rand(4, 3, 64, 64) * 2 - 1,),
        (torch.rand(1, 3, 96, 96) * 2 - 1,),
        (torch.rand(2, 3, 48, 64) * 2 - 1,),
    ]
    return {"model": model, "inputs": inputs}


def make_autoencoder_oobleck():
    """diffusers.AutoencoderOobleck (Stable Audio VAE, Snake activations, weight-norm convs): batch and audio length vary."""
    import torch
    from diffusers import AutoencoderOobleck

    torch.manual_seed(0)
    model = AutoencoderOobleck(
        encoder_hidden_size=12, downsampling_ratios=[2, 4], channel_multiples=[1, 4], decoder_channels=12,
        decoder_input_channels=6, audio_channels=2, sampling_rate=16000,
    ).eval()
    inputs = [
        (torch.randn(1, 2, 256), False),
        (torch.randn(2, 2, 256), False),
        (torch.randn(4, 2, 128), False),
        (torch.randn(1, 2, 1024), False),
        (torch.randn(2, 2, 512), False),
    ]
    return {"model": model, "inputs": inputs}


def make_autoencoder_dc():
    """diffusers.AutoencoderDC (Sana deep-compression AE, EfficientViT linear-attention blocks): batch and size vary."""
    import torch
    from diffusers import AutoencoderDC

    torch.manual_seed(0)
    model = AutoencoderDC(
        in_channels=3, latent_channels=4, attention_head_dim=2,
        encoder_block_types=("ResBlock", "EfficientViTBlock"), decoder_block_types=("ResBlock", "EfficientViTBlock"),
        encoder_block_out_channels=(8, 8), decoder_block_out_channels=(8, 8),
        encoder_qkv_multiscales=((), (5,)), decoder_qkv_multiscales=((), (5,)),
        encoder_layers_per_block=(1, 1), decoder_layers_per_block=(1, 1),
        upsample_block_type="interpolate", downsample_block_type="Conv",
        decoder_norm_types="rms_norm", decoder_act_fns="silu", scaling_factor=0.41407,
    ).eval()
    inputs = [
        (torch.randn(1, 3, 32, 32),),
        (torch.randn(2, 3, 32, 32),),
        (torch.randn(4, 3, 16, 16),),
        (torch.randn(1, 3, 64, 64),),
        (torch.randn(2, 3, 48, 48),),
    ]
    return {"model": model, "inputs": inputs}


def make_t2i_adapter():
    """diffusers.T2IAdapter (full adapter, pixel-unshuffle then ResNet pyramid): batch 1/2/4, 32 to 128 pixels."""
    import torch
    from diffusers import T2IAdapter

    torch.manual_seed(0)
    model = T2IAdapter(in_channels=3, channels=[32, 64], num_res_blocks=1, downscale_factor=4,
                       adapter_type="full_adapter").eval()
    inputs = [
        (torch.rand(1, 3, 64, 64),),
        (torch.rand(2, 3, 64, 64),),
        (torch.rand(4, 3, 32, 32),),
        (torch.rand(1, 3, 128, 128),),
        (torch.rand(2, 3, 96, 64),),
    ]
    return {"model": model, "inputs": inputs}


def make_dit():
    """diffusers.DiTTransformer2DModel (class-conditional DiT, adaLN-zero): batch, square latent size, timesteps, labels vary."""
    import torch
    from diffusers import DiTTransformer2DModel

    torch.manual_seed(0)
    model = DiTTransformer2DModel(
        num_attention_heads=2, attention_head_dim=16, in_channels=4, out_channels=8, num_layers=2,
        sample_size=8, patch_size=2, num_embeds_ada_norm=1000,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 8, 8), torch.tensor([10]), torch.tensor([1])),
        (torch.randn(2, 4, 8, 8), torch.tensor([500, 500]), torch.tensor([7, 999])),
        (torch.randn(4, 4, 16, 16), torch.tensor([1, 250, 500, 999]), torch.tensor([0, 1, 2, 3])),
        (torch.randn(1, 4, 12, 12), torch.tensor([999]), torch.tensor([42])),
        (torch.randn(2, 4, 4, 4), torch.tensor([3, 700]), torch.tensor([5, 6])),
    ]
    return {"model": model, "inputs": inputs}


def make_pixart():
    """diffusers.PixArtTransformer2DModel (PixArt-alpha DiT, adaLN-single plus cross-attention): batch, size, text length vary."""
    import torch
    from diffusers import PixArtTransformer2DModel

    torch.manual_seed(0)
    model = PixArtTransformer2DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2,
        cross_attention_dim=16, sample_size=8, patch_size=2, num_embeds_ada_norm=1000,
        norm_type="ada_norm_single", norm_elementwise_affine=False, norm_eps=1e-6,
        use_additional_conditions=False, caption_channels=None,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 8, 8), torch.randn(1, 8, 16), torch.tensor([10])),
        (torch.randn(2, 4, 8, 8), torch.randn(2, 8, 16), torch.tensor([500, 500])),
        (torch.randn(4, 4, 16, 16), torch.randn(4, 12, 16), torch.tensor([1, 250, 500, 999])),
        (torch.randn(1, 4, 12, 12), torch.randn(1, 4, 16), torch.tensor([999])),
        (torch.randn(2, 4, 8, 16), torch.randn(2, 8, 16), torch.tensor([3, 700])),
    ]
    return {"model": model, "inputs": inputs}


def make_sd3_transformer():
    """diffusers.SD3Transformer2DModel (MMDiT joint attention, cropped sin-cos position embedding): batch, size, text length vary."""
    import torch
    from diffusers import SD3Transformer2DModel

    torch.manual_seed(0)
    model = SD3Transformer2DModel(
        sample_size=16, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8, num_attention_heads=4,
        joint_attention_dim=32, caption_projection_dim=32, pooled_projection_dim=64, out_channels=4,
        pos_embed_max_size=32,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 16, 16), torch.randn(1, 8, 32), torch.randn(1, 64), torch.tensor([10.0])),
        (torch.randn(2, 4, 16, 16), torch.randn(2, 8, 32), torch.randn(2, 64), torch.tensor([500.0, 500.0])),
        (torch.randn(4, 4, 8, 8), torch.randn(4, 12, 32), torch.randn(4, 64), torch.tensor([1.0, 250.0, 500.0, 999.0])),
        (torch.randn(1, 4, 32, 32), torch.randn(1, 16, 32), torch.randn(1, 64), torch.tensor([999.0])),
        (torch.randn(2, 4, 24, 16), torch.randn(2, 8, 32), torch.randn(2, 64), torch.tensor([3.0, 700.0])),
    ]
    return {"model": model, "inputs": inputs}


def make_flux_transformer():
    """diffusers.FluxTransformer2DModel (double- and single-stream blocks, 3-axis RoPE from position ids): tokens, text length vary."""
    import torch
    from diffusers import FluxTransformer2DModel

    def ids(h, w):
        grid = torch.zeros(h, w, 3)
        grid[..., 1] = torch.arange(h)[:, None]
        grid[..., 2] = torch.arange(w)[None, :]
        return grid.reshape(h * w, 3)

    def one(b, h, w, n_txt, t):
        return (torch.randn(b, h * w, 4), torch.randn(b, n_txt, 32), torch.randn(b, 32), t,
                ids(h, w), torch.zeros(n_txt, 3))

    torch.manual_seed(0)
    model = FluxTransformer2DModel(
        patch_size=1, in_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=16,
        num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32, axes_dims_rope=(4, 4, 8),
    ).eval()
    inputs = [
        one(1, 8, 8, 8, torch.tensor([0.5])),
        one(2, 8, 8, 8, torch.tensor([1.0, 1.0])),
        one(4, 4, 4, 12, torch.tensor([0.1, 0.3, 0.6, 0.9])),
        one(1, 16, 16, 16, torch.tensor([0.01])),
        one(2, 8, 12, 8, torch.tensor([0.25, 0.75])),
    ]
    return {"model": model, "inputs": inputs}


def make_sana_transformer():
    """diffusers.SanaTransformer2DModel (linear-attention DiT with Mix-FFN, caption cross-attention): batch, size, text length vary."""
    import torch
    from diffusers import SanaTransformer2DModel

    torch.manual_seed(0)
    model = SanaTransformer2DModel(
        in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8, num_layers=2,
        num_cross_attention_heads=2, cross_attention_head_dim=8, cross_attention_dim=16, caption_channels=8,
        sample_size=16, patch_size=1,
    ).eval()
    inputs = [
        (torch.randn(1, 4, 16, 16), torch.randn(1, 8, 8), torch.tensor([10])),
        (torch.randn(2, 4, 16, 16), torch.randn(2, 8, 8), torch.tensor([500, 500])),
        (torch.randn(4, 4, 8, 8), torch.randn(4, 12, 8), torch.tensor([1, 250, 500, 999])),
        (torch.randn(1, 4, 32, 32), torch.randn(1, 4, 8), torch.tensor([999])),
        (torch.randn(2, 4, 24, 16), torch.randn(2, 8, 8), torch.tensor([3, 700])),
    ]
    return {"model": model, "inputs": inputs}


def make_prior_transformer():
    """diffusers.PriorTransformer (unCLIP / Kandinsky prior over image embeddings, causal mask): batch and values vary, fixed text length."""
    import torch
    from diffusers import PriorTransformer

    torch.manual_seed(0)
    model = PriorTransformer(
        num_attention_heads=2, attention_head_dim=16, num_layers=2, embedding_dim=32, num_embeddings=8,
        additional_embeddings=4,
    ).eval()

    def one(b, t):
        return (torch.randn(b, 32), t, torch.randn(b, 32), torch.randn(b, 8, 32))

    inputs = [
        one(1, 10),
        one(2, torch.tensor(500)),
        one(4, torch.tensor([1, 250, 500, 999])),
        one(1, 999),
        one(3, torch.tensor([3, 700, 42])),
    ]
    return {"model": model, "inputs": inputs}
