"""Real models from stable-baselines3 for the real-world ground truth (benchmarks/realworld/README.md).

Each factory builds one model from its config with random weights (no download) and returns five input
sets that differ as deployment inputs do (batch size, resolution or length, values).

The policies are built from gymnasium spaces and a constant learning-rate schedule (no environment). The
observation space fixes the per-sample shape, so the sets vary batch size (batch 1 first: the control-loop
latency case) and values. Forward is called with deterministic=True, so no action is sampled.
"""

LIBRARY = "stable-baselines3"   # the pip distribution name
PACKAGE = "stable_baselines3"   # the import package whose files count as the library's


def make_ppo_mlp_policy():
    """stable_baselines3 ActorCriticPolicy (PPO/A2C MlpPolicy, Box obs, diagonal-Gaussian actions): batch 1/2/8/32/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.common.policies import ActorCriticPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-10.0, high=10.0, shape=(17,), dtype=np.float32)
    act_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(6,), dtype=np.float32)
    model = ActorCriticPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=dict(pi=[64, 64], vf=[64, 64])).eval()
    inputs = [
        (torch.randn(1, 17), True),
        (torch.randn(2, 17) * 3, True),
        (torch.randn(8, 17), True),
        (torch.randn(32, 17) * 0.1, True),
        (torch.zeros(1, 17), True),
    ]
    return {"model": model, "inputs": inputs}


def make_a2c_cnn_policy():
    """stable_baselines3 ActorCriticCnnPolicy (Atari-style NatureCNN on uint8 frames, categorical actions): batch 1/2/4/8/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.common.policies import ActorCriticCnnPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=0, high=255, shape=(4, 64, 64), dtype=np.uint8)
    act_space = gym.spaces.Discrete(6)
    model = ActorCriticCnnPolicy(obs_space, act_space, lambda _: 3e-4,
                                 features_extractor_kwargs=dict(features_dim=128)).eval()

    def frames(b):
        return torch.randint(0, 256, (b, 4, 64, 64), dtype=torch.uint8)

    inputs = [
        (frames(1), True),
        (frames(2), True),
        (frames(4), True),
        (frames(8), True),
        (torch.full((1, 4, 64, 64), 255, dtype=torch.uint8), True),
    ]
    return {"model": model, "inputs": inputs}


def make_multi_input_policy():
    """stable_baselines3 MultiInputActorCriticPolicy (Dict obs: image + vector + discrete, CombinedExtractor, MultiDiscrete actions)."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.common.policies import MultiInputActorCriticPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Dict({
        "camera": gym.spaces.Box(low=0, high=255, shape=(3, 40, 40), dtype=np.uint8),
        "proprio": gym.spaces.Box(low=-5.0, high=5.0, shape=(9,), dtype=np.float32),
        "mode": gym.spaces.Discrete(4),
    })
    act_space = gym.spaces.MultiDiscrete([3, 5])
    model = MultiInputActorCriticPolicy(obs_space, act_space, lambda _: 3e-4,
                                        features_extractor_kwargs=dict(cnn_output_dim=64)).eval()

    def obs(b, mode):
        return {
            "camera": torch.randint(0, 256, (b, 3, 40, 40), dtype=torch.uint8),
            "proprio": torch.randn(b, 9),
            "mode": torch.full((b,), mode, dtype=torch.long),
        }

    inputs = [
        (obs(1, 0), True),
        (obs(2, 1), True),
        (obs(4, 3), True),
        (obs(8, 2), True),
        (obs(1, 3), True),
    ]
    return {"model": model, "inputs": inputs}


def make_sac_policy():
    """stable_baselines3 SACPolicy (squashed-Gaussian actor, deterministic mean action through tanh): batch 1/2/8/32/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.sac.policies import SACPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(11,), dtype=np.float32)
    act_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(3,), dtype=np.float32)
    model = SACPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[64, 64]).eval()
    inputs = [
        (torch.randn(1, 11), True),
        (torch.randn(2, 11) * 5, True),
        (torch.randn(8, 11), True),
        (torch.randn(32, 11) * 0.5, True),
        (torch.zeros(1, 11), True),
    ]
    return {"model": model, "inputs": inputs}


def make_sac_gsde_actor():
    """stable_baselines3 SAC Actor with generalized state-dependent exploration (gSDE), deterministic mean action."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.sac.policies import SACPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(8,), dtype=np.float32)
    act_space = gym.spaces.Box(low=-2.0, high=2.0, shape=(2,), dtype=np.float32)
    policy = SACPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[32, 32], use_sde=True)
    model = policy.actor.eval()
    inputs = [
        (torch.randn(1, 8), True),
        (torch.randn(2, 8), True),
        (torch.randn(4, 8) * 3, True),
        (torch.randn(16, 8), True),
        (torch.ones(1, 8), True),
    ]
    return {"model": model, "inputs": inputs}


def make_sac_critic():
    """stable_baselines3 ContinuousCritic (SAC twin Q-networks on concatenated obs and action): batch 1/2/8/32/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.sac.policies import SACPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(11,), dtype=np.float32)
    act_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(3,), dtype=np.float32)
    policy = SACPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[64, 64], n_critics=2)
    model = policy.critic.eval()
    inputs = [
        (torch.randn(1, 11), torch.rand(1, 3) * 2 - 1),
        (torch.randn(2, 11), torch.rand(2, 3) * 2 - 1),
        (torch.randn(8, 11) * 4, torch.rand(8, 3) * 2 - 1),
        (torch.randn(32, 11), torch.ones(32, 3)),
        (torch.zeros(1, 11), torch.zeros(1, 3)),
    ]
    return {"model": model, "inputs": inputs}


def make_td3_policy():
    """stable_baselines3 TD3Policy (deterministic tanh actor): batch 1/2/8/32/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.td3.policies import TD3Policy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(24,), dtype=np.float32)
    act_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(4,), dtype=np.float32)
    model = TD3Policy(obs_space, act_space, lambda _: 3e-4, net_arch=[64, 64]).eval()
    inputs = [
        (torch.randn(1, 24), True),
        (torch.randn(2, 24), True),
        (torch.randn(8, 24) * 2, True),
        (torch.randn(32, 24), True),
        (torch.zeros(1, 24), True),
    ]
    return {"model": model, "inputs": inputs}


def make_dqn_policy():
    """stable_baselines3 DQNPolicy (Q-network, greedy argmax action, Box obs): batch 1/2/8/32/1."""
    import gymnasium as gym
    import numpy as np
    import torch
    from stable_baselines3.dqn.policies import DQNPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(4,), dtype=np.float32)
    act_space = gym.spaces.Discrete(2)
    model = DQNPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[64, 64]).eval()
    inputs = [
        (torch.randn(1, 4), True),
        (torch.randn(2, 4), True),
        (torch.randn(8, 4) * 2, True),
        (torch.randn(32, 4), True),
        (torch.zeros(1, 4), True),
    ]
    return {"model": model, "inputs": inputs}


def make_dqn_qnetwork_discrete_obs():
    """stable_baselines3 QNetwork (DQN q_net on a Discrete obs space: one-hot preprocessing, Q-values out): batch 1/2/8/32/1."""
    import gymnasium as gym
    import torch
    from stable_baselines3.dqn.policies import DQNPolicy

    torch.manual_seed(0)
    obs_space = gym.spaces.Discrete(16)  # FrozenLake-style grid cell index
    act_space = gym.spaces.Discrete(4)
    policy = DQNPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[32])
    model = policy.q_net.eval()
    inputs = [
        (torch.tensor([0]),),
        (torch.tensor([3, 15]),),
        (torch.arange(8),),
        (torch.randint(0, 16, (32,)),),
        (torch.tensor([15]),),
    ]
    return {"model": model, "inputs": inputs}
