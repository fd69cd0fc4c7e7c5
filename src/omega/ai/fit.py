"""Training the learnt evaluation (``omega train fit``): the network of :mod:`omega.ai.net`
written again in JAX, fitted with Optax to self-play files (:mod:`omega.ai.selfplay`).

JAX and Optax come from the optional ``train`` extra (``pip install -e '.[train]'``); this
module imports them only inside :func:`fit_main`, so playing never needs them.

The loss is the cross-entropy of the policy against the search's visit shares (over the
empty cells) plus the cross-entropy of the value against the winner's seat.  Each batch is
turned by one of the board's twelve symmetries, drawn at random.  The games of the last
tenth of each file are held out, and their losses are printed after every epoch.

The weights file holds the network (:class:`omega.ai.net.Net`'s arrays), a few inputs
with the outputs JAX gave them (``ref_*``, so a test can hold the NumPy forward pass to
JAX's without JAX), the player counts and board sides of the data (``players``,
``sizes``), the loss history and the settings.

>>> rows = relative_winner(np.array([0, 1, 1], np.int8), np.array([1, 1, 0], np.int8), 2); rows.tolist()
[1, 0, 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from omega.ai.net import FEATURES, Net, encode, symmetries
from omega.kernel import Int8Array, board_arrays

__all__ = ["HELD_OUT", "fit_main", "relative_winner"]

#: Share of each file's games held out to measure the fit.
HELD_OUT = 0.1


def relative_winner(winner: Int8Array, turn: Int8Array, players: int) -> NDArray[Any]:
    """The winner's seat counted from the mover (0: the mover won)."""
    seat: NDArray[Any] = ((winner.astype(np.int64) - turn) % players).astype(np.int32)
    return seat


class _Data:
    """One self-play file, encoded: inputs, targets, and which rows are held out."""

    def __init__(self, path: Path) -> None:
        with np.load(path) as d:
            self.size, self.players = int(d["size"]), int(d["players"])
            boards, turn, colour = d["boards"], d["turn"], d["colour"]
            self.policy = d["policy"].astype(np.float32)
            self.seat = relative_winner(d["winner"], turn, self.players)
            game = d["game"]
        self.nbr = board_arrays(self.size).nbr
        self.x = np.empty((len(boards), len(self.nbr), FEATURES), dtype=np.float32)
        for i in range(len(boards)):
            encode(boards[i], int(turn[i]), int(colour[i]), self.players, self.nbr, self.x[i])
        last = np.unique(game)
        cut = last[int(len(last) * (1 - HELD_OUT))] if len(last) > 1 else last[-1] + 1
        self.test = game >= cut
        self.boards, self.turn, self.colour = boards, turn, colour


def _init(rng: np.random.Generator, width: int, layers: int, hidden: int) -> dict[str, NDArray[Any]]:
    def he(*shape: int, scale: float = 1.0) -> NDArray[Any]:
        w: NDArray[Any] = (rng.standard_normal(shape) * scale * np.sqrt(2.0 / shape[-2])).astype(np.float32)
        return w

    return {
        "w_in": he(FEATURES, width), "b_in": np.zeros(width, np.float32),
        "ws": he(layers, width, width, scale=0.3), "wn": he(layers, width, width, scale=0.1),
        "wg": he(layers, width, width, scale=0.1), "b": np.zeros((layers, width), np.float32),
        "w_p": (rng.standard_normal(width) * 0.01).astype(np.float32), "b_p": np.zeros(1, np.float32),
        "w_v1": he(2 * width, hidden), "b_v1": np.zeros(hidden, np.float32),
        "w_v2": (rng.standard_normal((hidden, 4)) * 0.01).astype(np.float32), "b_v2": np.zeros(4, np.float32),
    }


def _model(jnp: Any, jax: Any) -> Any:
    """The forward pass of :func:`omega.ai.net.forward` on a batch, in JAX: policy logits
    (cells not empty at -1e9) and value logits (seats past the players at -1e9)."""

    def apply(p: dict[str, Any], x: Any, nbr: Any, players: Any) -> tuple[Any, Any]:
        h = jax.nn.relu(x @ p["w_in"] + p["b_in"])
        for layer in range(p["ws"].shape[0]):
            shared = h.mean(axis=1) @ p["wg"][layer] + p["b"][layer]
            padded = jnp.concatenate([h, jnp.zeros_like(h[:, :1])], axis=1)
            agg = padded[:, nbr].sum(axis=2)  # nbr: -1 padding turned into the zero row
            h = h + jax.nn.relu(h @ p["ws"][layer] + agg @ p["wn"][layer] + shared[:, None, :])
        logits = h @ p["w_p"] + p["b_p"][0]
        logits = jnp.where(x[:, :, 4] > 0, logits, -1e9)
        pooled = jnp.concatenate([h.mean(axis=1), h.max(axis=1)], axis=-1)
        value = jax.nn.relu(pooled @ p["w_v1"] + p["b_v1"]) @ p["w_v2"] + p["b_v2"]
        value = jnp.where(jnp.arange(4)[None, :] < players[:, None], value, -1e9)
        return logits, value

    return apply


def fit_main(args: argparse.Namespace) -> int:
    """``omega train fit``: train on ``args.data`` and write the weights to ``args.output``."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ModuleNotFoundError as e:
        print(f"omega train fit: {e.name} is missing: install the train extra (pip install -e '.[train]')",
              file=sys.stderr)
        return 2
    try:
        files = [_Data(Path(p)) for p in args.data]
    except (OSError, KeyError, ValueError) as e:
        print(f"omega train fit: cannot read the data: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    params = {k: jnp.asarray(v) for k, v in _init(rng, args.width, args.layers, 32).items()}
    apply = _model(jnp, jax)
    steps_per_epoch = sum(max(1, int((~f.test).sum()) // args.batch) for f in files)
    schedule = optax.cosine_decay_schedule(args.lr, args.epochs * steps_per_epoch, alpha=0.05)
    opt = optax.adamw(schedule, weight_decay=1e-4)
    state = opt.init(params)

    def losses(p: Any, x: Any, nbr: Any, players: Any, policy: Any, seat: Any) -> tuple[Any, Any]:
        logits, value = apply(p, x, nbr, players)
        policy_loss = -(policy * jax.nn.log_softmax(logits)).sum(axis=1).mean()
        value_loss = -jnp.take_along_axis(jax.nn.log_softmax(value), seat[:, None], axis=1).mean()
        return policy_loss, value_loss

    def total(p: Any, *batch: Any) -> Any:
        policy_loss, value_loss = losses(p, *batch)
        return policy_loss + value_loss

    def plain_step(p: Any, s: Any, *batch: Any) -> tuple[Any, Any, Any]:
        loss, grads = jax.value_and_grad(total)(p, *batch)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    step = jax.jit(plain_step)

    measure = jax.jit(losses)
    tables = [(f, symmetries(f.size), jnp.asarray(np.where(f.nbr < 0, len(f.nbr), f.nbr))) for f in files]
    history = []
    for epoch in range(1, args.epochs + 1):
        train_sum, count = 0.0, 0
        for f, perms, nbr in tables:
            rows = rng.permutation(np.flatnonzero(~f.test))
            players = np.full(args.batch, f.players)
            for b in range(len(rows) // args.batch):
                at = rows[b * args.batch:(b + 1) * args.batch]
                perm = perms[rng.integers(len(perms))]
                params, state, loss = step(params, state, f.x[at][:, perm], nbr, players, f.policy[at][:, perm],
                                           f.seat[at])
                train_sum, count = train_sum + float(loss), count + 1
        held = [_held_out(measure, apply, params, f, nbr) for f, _, nbr in tables]
        weights = np.array([h[4] for h in held], dtype=np.float64)
        pl, vl, top, vacc = (float(np.average([h[i] for h in held], weights=weights)) for i in range(4))
        history.append((epoch, train_sum / max(count, 1), pl, vl, top, vacc, time.perf_counter() - start))
        print(f"epoch {epoch}: train loss {train_sum / max(count, 1):.4f}, held out: policy {pl:.4f}, "
              f"value {vl:.4f}, top choice {top:.3f}, winner {vacc:.3f} ({time.perf_counter() - start:.0f} s)")
    out: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
    _add_references(out, apply, params, files[0], jnp)
    out["history"] = np.array(history, dtype=np.float64)
    out["positions"] = np.int64(sum(len(f.x) for f in files))
    out["players"] = np.array(sorted({f.players for f in files}), dtype=np.int32)
    out["sizes"] = np.array(sorted({f.size for f in files}), dtype=np.int32)
    out["settings"] = np.array(" ".join(f"--{k}={v}" for k, v in sorted(vars(args).items())
                                        if k not in ("command", "action")))
    Net.from_arrays(out)  # every field is there
    np.savez_compressed(Path(args.output), **out)
    print(f"{out['positions']} positions, {time.perf_counter() - start:.0f} s -> {args.output}")
    return 0


def _held_out(measure: Any, apply: Any, params: Any, f: _Data, nbr: Any) -> tuple[float, float, float, float, int]:
    """Policy and value losses, how often the policy's top cell is the search's and how
    often the value's top seat won, over the held-out rows of ``f``."""
    rows = np.flatnonzero(f.test)
    if not len(rows):
        return 0.0, 0.0, 0.0, 0.0, 0
    sums = np.zeros(4)
    for b in range(0, len(rows), 1024):
        at = rows[b:b + 1024]
        players = np.full(len(at), f.players)
        pl, vl = measure(params, f.x[at], nbr, players, f.policy[at], f.seat[at])
        logits, value = apply(params, f.x[at], nbr, players)
        sums += [float(pl) * len(at), float(vl) * len(at),
                 float((np.argmax(np.asarray(logits), 1) == np.argmax(f.policy[at], 1)).sum()),
                 float((np.argmax(np.asarray(value), 1) == f.seat[at]).sum())]
    pl, vl, top, vacc = (float(v) for v in sums / len(rows))
    return pl, vl, top, vacc, len(rows)


def _add_references(out: dict[str, Any], apply: Any, params: Any, f: _Data, jnp: Any) -> None:
    """A few held-out inputs and JAX's outputs for them: the NumPy forward pass must agree."""
    at = np.flatnonzero(f.test)[:4] if f.test.any() else np.arange(min(4, len(f.x)))
    nbr = jnp.asarray(np.where(f.nbr < 0, len(f.nbr), f.nbr))
    logits, value = apply(params, f.x[at], nbr, np.full(len(at), f.players))
    out.update(ref_boards=f.boards[at], ref_turn=f.turn[at], ref_colour=f.colour[at], ref_size=np.int32(f.size),
               ref_players=np.int32(f.players), ref_logits=np.asarray(logits, dtype=np.float32),
               ref_value=np.asarray(_softmax(np.asarray(value, dtype=np.float64)), dtype=np.float32))


def _softmax(value: np.ndarray) -> NDArray[Any]:
    """Softmax over the last axis (the masked seats' -1e9 give 0)."""
    e = np.exp(value - value.max(axis=-1, keepdims=True))
    share: NDArray[Any] = e / e.sum(axis=-1, keepdims=True)
    return share
