"""Real models from PyTorch Geometric for the real-world ground truth (benchmarks/realworld/README.md).

Each factory builds one model from its config with random weights (no download) and returns five input
sets that differ as deployment inputs do (batch size, resolution or length, values): here the number of
nodes, the number of edges, the number of graphs in a batch, and the feature values.
"""

LIBRARY = "torch-geometric"   # the pip distribution name
PACKAGE = "torch_geometric"   # the import package whose files count as the library's


def make_gcn():
    """torch_geometric.nn.models.GCN (3 layers, batch norm, jk="cat"): (x, edge_index), 10 to 100 nodes."""
    import torch
    from torch_geometric.nn.models import GCN

    torch.manual_seed(0)
    model = GCN(in_channels=8, hidden_channels=16, num_layers=3, out_channels=4, norm="batch_norm", jk="cat").eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_gat():
    """torch_geometric.nn.models.GAT (GATConv, 2 heads): (x, edge_index), 10 to 100 nodes."""
    import torch
    from torch_geometric.nn.models import GAT

    torch.manual_seed(0)
    model = GAT(in_channels=8, hidden_channels=16, num_layers=2, out_channels=3, heads=2).eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_gatv2_edge_attr():
    """torch_geometric.nn.models.GAT(v2=True) with edge features: (x, edge_index, None, edge_attr)."""
    import torch
    from torch_geometric.nn.models import GAT

    torch.manual_seed(0)
    model = GAT(in_channels=6, hidden_channels=12, num_layers=2, out_channels=2, v2=True, heads=3, edge_dim=4).eval()
    inputs = []
    for n, e in [(10, 25), (17, 60), (40, 100), (64, 256), (100, 250)]:
        inputs.append((torch.randn(n, 6), torch.randint(0, n, (2, e)), None, torch.randn(e, 4)))
    return {"model": model, "inputs": inputs}


def make_graphsage():
    """torch_geometric.nn.models.GraphSAGE (SAGEConv, max aggregation, jk="max"): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import GraphSAGE

    torch.manual_seed(0)
    model = GraphSAGE(in_channels=8, hidden_channels=16, num_layers=3, out_channels=5, aggr="max", jk="max").eval()
    inputs = []
    for n, e in [(10, 30), (17, 40), (40, 160), (64, 128), (100, 400)]:
        inputs.append((torch.rand(n, 8), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_gin_graph_norm():
    """torch_geometric.nn.models.GIN with GraphNorm over a batch vector: (x, edge_index, None, None, batch)."""
    import torch
    from torch_geometric.nn.models import GIN

    torch.manual_seed(0)
    model = GIN(in_channels=8, hidden_channels=16, num_layers=3, out_channels=4, norm="graph_norm").eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), None, None, batch))
    return {"model": model, "inputs": inputs}


def make_pna():
    """torch_geometric.nn.models.PNA (4 aggregators, 3 degree scalers, towers): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import PNA

    torch.manual_seed(0)
    deg = torch.tensor([2, 5, 9, 7, 4, 2, 1])  # in-degree histogram of a (training) graph
    model = PNA(in_channels=8, hidden_channels=16, num_layers=2, out_channels=4,
                aggregators=["mean", "min", "max", "std"], scalers=["identity", "amplification", "attenuation"],
                deg=deg, towers=2).eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_edgecnn():
    """torch_geometric.nn.models.EdgeCNN (EdgeConv on a given static graph): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import EdgeCNN

    torch.manual_seed(0)
    model = EdgeCNN(in_channels=3, hidden_channels=16, num_layers=2, out_channels=4).eval()
    inputs = []
    for n, e in [(10, 30), (17, 68), (40, 120), (64, 256), (100, 300)]:
        inputs.append((torch.randn(n, 3), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_attentivefp():
    """torch_geometric.nn.models.AttentiveFP (GRU readout, global pooling over batch): (x, ei, edge_attr, batch)."""
    import torch
    from torch_geometric.nn.models import AttentiveFP

    torch.manual_seed(0)
    model = AttentiveFP(in_channels=8, hidden_channels=16, out_channels=1, edge_dim=4, num_layers=2,
                        num_timesteps=2).eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        batch[-1] = g - 1
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), torch.randn(e, 4), batch))
    return {"model": model, "inputs": inputs}


def make_mlp():
    """torch_geometric.nn.models.MLP (batch norm, plain last layer): (x,), 10 to 100 rows."""
    import torch
    from torch_geometric.nn.models import MLP

    torch.manual_seed(0)
    model = MLP([8, 32, 32, 4], norm="batch_norm", dropout=0.1).eval()
    inputs = [(torch.randn(n, 8),) for n in (10, 17, 40, 64, 100)]
    return {"model": model, "inputs": inputs}


def make_graph_unet():
    """torch_geometric.nn.models.GraphUNet (TopKPooling, adjacency augmentation): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import GraphUNet

    torch.manual_seed(0)
    model = GraphUNet(in_channels=6, hidden_channels=16, out_channels=3, depth=2, pool_ratios=0.5).eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 6), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_linkx():
    """torch_geometric.nn.models.LINKX (fixed num_nodes 40, adjacency embedding): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import LINKX

    torch.manual_seed(0)
    model = LINKX(num_nodes=40, in_channels=8, hidden_channels=16, out_channels=3, num_layers=2).eval()
    inputs = []
    for e in (40, 80, 120, 200, 320):
        inputs.append((torch.randn(40, 8), torch.randint(0, 40, (2, e))))
    return {"model": model, "inputs": inputs}


def make_pmlp():
    """torch_geometric.nn.models.PMLP (MLP with message passing at inference): (x, edge_index)."""
    import torch
    from torch_geometric.nn.models import PMLP

    torch.manual_seed(0)
    model = PMLP(in_channels=8, hidden_channels=16, out_channels=3, num_layers=3).eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e))))
    return {"model": model, "inputs": inputs}


def make_neural_fingerprint():
    """torch_geometric.nn.models.NeuralFingerprint (MFConv, sum readout over batch): (x, edge_index, batch)."""
    import torch
    from torch_geometric.nn.models import NeuralFingerprint

    torch.manual_seed(0)
    model = NeuralFingerprint(in_channels=8, hidden_channels=16, out_channels=32, num_layers=2).eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), batch))
    return {"model": model, "inputs": inputs}


def make_sgformer():
    """torch_geometric.nn.models.SGFormer (linear global attention + GCN, per-graph): (x, edge_index, batch)."""
    import torch
    from torch_geometric.nn.models import SGFormer

    torch.manual_seed(0)
    model = SGFormer(in_channels=8, hidden_channels=16, out_channels=3, trans_num_layers=1, gnn_num_layers=2).eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), batch))
    return {"model": model, "inputs": inputs}


def make_polynormer():
    """torch_geometric.nn.models.Polynormer (local GAT + global polynomial attention): (x, edge_index, batch)."""
    import torch
    from torch_geometric.nn.models import Polynormer

    torch.manual_seed(0)
    model = Polynormer(in_channels=8, hidden_channels=16, out_channels=3, local_layers=2, global_layers=1,
                       heads=2).eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), batch))
    return {"model": model, "inputs": inputs}


def make_lightgcn():
    """torch_geometric.nn.models.LightGCN (50 node embeddings, link scores): (edge_index, edge_label_index)."""
    import torch
    from torch_geometric.nn.models import LightGCN

    torch.manual_seed(0)
    model = LightGCN(num_nodes=50, embedding_dim=16, num_layers=2).eval()
    inputs = []
    for e, q in [(60, 5), (100, 10), (150, 1), (200, 40), (300, 25)]:
        inputs.append((torch.randint(0, 50, (2, e)), torch.randint(0, 50, (2, q))))
    return {"model": model, "inputs": inputs}


def make_transformer_conv():
    """torch_geometric.nn.TransformerConv (graph transformer layer, 2 heads, edge features, beta gate)."""
    import torch
    from torch_geometric.nn import TransformerConv

    torch.manual_seed(0)
    model = TransformerConv(8, 8, heads=2, beta=True, edge_dim=3).eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 8), torch.randint(0, n, (2, e)), torch.randn(e, 3)))
    return {"model": model, "inputs": inputs}


def make_gps_conv():
    """torch_geometric.nn.GPSConv (GINConv + dense multi-head attention per graph): (x, edge_index, batch)."""
    import torch
    from torch_geometric.nn import GINConv, GPSConv
    from torch_geometric.nn.models import MLP

    torch.manual_seed(0)
    model = GPSConv(16, GINConv(MLP([16, 16, 16], norm=None)), heads=2).eval()
    inputs = []
    for n, e, g in [(10, 30, 1), (17, 50, 2), (40, 120, 3), (64, 200, 4), (100, 300, 5)]:
        batch = torch.sort(torch.randint(0, g, (n,))).values
        inputs.append((torch.randn(n, 16), torch.randint(0, n, (2, e)), batch))
    return {"model": model, "inputs": inputs}


def make_deepgcn_genconv():
    """torch_geometric.nn.DeepGCNLayer (res+ block around GENConv softmax aggregation): (x, edge_index, edge_attr)."""
    import torch
    from torch_geometric.nn import DeepGCNLayer, GENConv

    torch.manual_seed(0)
    conv = GENConv(16, 16, aggr="softmax", t=1.0, learn_t=True, num_layers=2, norm="layer", edge_dim=16)
    model = DeepGCNLayer(conv, torch.nn.LayerNorm(16), torch.nn.ReLU(), block="res+").eval()
    inputs = []
    for n, e in [(10, 30), (17, 50), (40, 120), (64, 200), (100, 300)]:
        inputs.append((torch.randn(n, 16), torch.randint(0, n, (2, e)), torch.randn(e, 16)))
    return {"model": model, "inputs": inputs}
