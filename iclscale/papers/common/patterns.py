"""The pattern data model of Li, Wang, Lu, Cui, Chen (ICML 2024) [L24] §3.2, shared by seeds 000–002.

Inputs are built from pairwise orthogonal patterns of norm β in R^{d_X}: M1 relevant patterns μ_j that
decide labels and M2 irrelevant patterns ν_k that do not, x = μ_j + κ·ν_k ([L24] Eq. 6). A task is an
ordered pair (a, b) of relevant patterns: μ_a → +1, μ_b → −1, any other pattern → a fair coin
([L24] Def. 3.1). A prompt's demonstrations carry each of the task's two decisive patterns with
probability α/2 ([L24] §3.2), and the prompt is embedded as P = [x_1 … x_l x_query; y_1 … y_l 0] with
y_i = ±q ([L24] Eq. 1).

Patterns are coordinate axes: μ_j = β·e_j and ν_k = β·e_{M1+k} (our choice: the initialisation is
rotation-invariant in distribution, so any orthonormal basis is equivalent). Coordinates past M1 + M2
are spare; an extension can put further directions there (seed 002's outliers).

Written for one config (the trainer vmaps over the pack): n prompts, l demonstrations; per-config scalars
(α, β, K, ‖q‖) are 0-d tensors. Index tensors keep the query as the last of l + 1 columns. Every draw comes
from the config's stream (`iclscale.trainer.rng.Stream`) under a purpose string the caller passes down, so a batch
is a pure function of (seed, purpose, step), and draws with another α (or α') but the same purpose and step
share their random numbers (common random numbers).

Constants built from sizes alone (patterns, tasks, label embeddings) take the device of the config's tensors
(`c.rng.device`): torch.compile before torch 2.13 ignores the pack's `with torch.device(...)` for factory
functions and would build them on the CPU (tests/test_trainer_contract.py checks every study's step).

Extending (seeds 001, 002): sample a `PromptDraw` (which pattern, coefficient and label every column
has), build features with `features` or your own formula (λμ + κν + noise, outliers), then `embed` them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.utils._pytree import register_dataclass

from iclscale.trainer.rng import Stream


# Patterns -----------------------------------------------------------------------------------
def unit_patterns(d_x: int, relevant: int, irrelevant: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Unit directions of the M1 relevant and M2 irrelevant patterns: e_1..e_M1 and e_{M1+1}..e_{M1+M2}.

    Returns (relevant (M1, d_X), irrelevant (M2, d_X)); the patterns themselves are β times these."""
    if relevant + irrelevant > d_x:
        raise ValueError(f"M1 + M2 = {relevant + irrelevant} orthogonal patterns do not fit in d_X = {d_x}")
    eye = torch.eye(d_x, device=device)
    return eye[:relevant], eye[relevant : relevant + irrelevant]


def label_embedding(d_y: int, norm: torch.Tensor | float = 1.0, axis: int = 0, device=None) -> torch.Tensor:
    """q = norm·e_1 ∈ R^{d_Y}, Embd(±1) = ±q ([L24] §3.2). The paper never gives q; its proofs' β² + 1
    terms imply ‖q‖ = 1 (our reading). `axis` > 0 gives norm·e_{axis+1} instead, a label embedding q' ⟂ q."""
    e_1 = (torch.arange(d_y, device=device) == axis).to(torch.get_default_dtype())  # a fill, not a host copy
    return norm * e_1


# Tasks --------------------------------------------------------------------------------------
def all_tasks(M1: int, device=None) -> torch.Tensor:
    """Every in-domain task: the M1(M1 − 1) ordered pairs (a, b), a ≠ b ([L24] Def. 3.1), in row-major order."""
    a, b = torch.meshgrid(torch.arange(M1, device=device), torch.arange(M1, device=device), indexing="ij")
    keep = a != b
    return torch.stack([a[keep], b[keep]], dim=-1)


def cyclic_tasks(M1: int, U: int, device=None) -> torch.Tensor:
    """[L24] §5: with a_i = a_{i+M1} = μ_i, task (k − 1)·M1 + j maps a_j → +1 and a_{j+k} → −1,
    for j ∈ [M1], k ∈ [U]. Returns (U·M1, 2)."""
    if not 1 <= U <= M1 - 1:
        raise ValueError(f"the cyclic task set needs 1 ≤ U ≤ M1 − 1, got U = {U}, M1 = {M1}")
    j = torch.arange(M1, device=device)
    k = torch.arange(1, U + 1, device=device)
    a = j.repeat(U)
    b = ((j[None, :] + k[:, None]) % M1).flatten()
    return torch.stack([a, b], dim=-1)


@dataclass
class TaskSet:
    """A set of tasks: pairs (T, 2) and their number `count` (0-d), rows at or past `count` being padding
    that is never sampled. Sets built from a membership mask have T = M1² rows whatever their count, so
    that every config's set has the same shape. A set with count 0 has no tasks (e.g. no unseen task is
    left); sampling from it returns padding, so callers mask it out."""

    pairs: torch.Tensor
    count: torch.Tensor

    @classmethod
    def of(cls, pairs: torch.Tensor) -> TaskSet:
        """Exactly these tasks (T, 2)."""
        return cls(pairs, torch.full((), len(pairs), device=pairs.device))

    @classmethod
    def from_mask(cls, mask: torch.Tensor) -> TaskSet:
        """Tasks from a membership mask (M1, M1): mask[a, b] says whether (a, b) is in the set."""
        M1 = mask.shape[-1]
        flat = mask.reshape(M1 * M1)
        order = torch.argsort((~flat).to(torch.int8), stable=True)  # members first, in row-major order
        return cls(torch.stack([order // M1, order % M1], dim=-1), flat.sum())

    def membership(self, M1: int) -> torch.Tensor:
        """(M1, M1) bool: which ordered pairs (a, b) are in the set."""
        T = self.pairs.shape[0]
        valid = torch.arange(T) < self.count
        index = self.pairs[:, 0] * M1 + self.pairs[:, 1]
        hits = torch.zeros(M1 * M1, dtype=torch.int64).scatter_add(0, index, valid.long())
        return (hits > 0).reshape(M1, M1)

    def sample(self, u: torch.Tensor) -> torch.Tensor:
        """Tasks chosen uniformly from the set: u (*shape) uniform on (0, 1) → (*shape, 2)."""
        index = torch.minimum((u * self.count).long(), (self.count - 1).clamp(min=0))
        return self.pairs[index.reshape(-1)].reshape(*u.shape, 2)


def training_tasks(rng: Stream, purpose: str, M1: int, U: torch.Tensor, n_tasks: torch.Tensor) -> TaskSet:
    """The training task set T_tr.

    n_tasks = 0: the cyclic set with offsets 1..U, |T_tr| = U·M1 ([L24] §5; U = 1 for the one-layer
    model, U = 4 for GPT-2). n_tasks > 0: [L24] App. A.2's sets around T_tr0 (the cyclic set with U = 1):
    n < M1 gives a random n-subset of T_tr0 (Condition 3.2 fails); n ≥ M1 gives T_tr0 ∪ (n − M1) random
    tasks of T \\ T_tr0. U, n_tasks: 0-d integer tensors.
    """
    a = torch.arange(M1)[:, None]
    b = torch.arange(M1)[None, :]
    offset = (b - a) % M1  # task (a, b) has cyclic offset k when b = a + k mod M1
    cyclic = (offset >= 1) & (offset <= U)
    base = offset == 1  # T_tr0
    # A.2: the n tasks of lowest priority; T_tr0 first (in random order), then the others (in random order)
    priority = rng.uniform(purpose, 0, (M1, M1)) + (~base).to(torch.get_default_dtype()) + 10.0 * (offset == 0)
    rank = torch.argsort(torch.argsort(priority.reshape(M1 * M1))).reshape(M1, M1)
    chosen = rank < n_tasks
    return TaskSet.from_mask(torch.where(n_tasks > 0, chosen, cyclic))


def unseen_tasks(train: TaskSet, M1: int) -> TaskSet:
    """T \\ T_tr: the in-domain tasks never trained on ([L24] §5 evaluates in-domain error on these only)."""
    every = ~torch.eye(M1, dtype=torch.bool)
    return TaskSet.from_mask(every & ~train.membership(M1))


@dataclass
class TaskCoverage:
    """How a task set covers (pattern, label) pairs; `holds` is [L24] Condition 3.2."""

    positive: torch.Tensor  # (M1,): number of tasks mapping μ_j to +1
    negative: torch.Tensor  # (M1,): number of tasks mapping μ_j to −1
    count: torch.Tensor  # |T_tr|
    holds: torch.Tensor  # bool

    def report(self) -> str:
        """The coverage in words."""
        n = int(self.count)
        if bool(self.holds):
            return (
                f"Condition 3.2 holds: each μ_j maps to +1 in {n // len(self.positive)} "
                f"and to −1 in as many of the {n} training tasks"
            )
        return (
            f"Condition 3.2 fails for the {n} training tasks: tasks mapping μ_j to +1 per j = "
            f"{self.positive.tolist()}, to −1 per j = {self.negative.tolist()}; each must equal |T_tr|/M1 ≥ 1"
        )


def condition_3_2(tasks: TaskSet, M1: int) -> TaskCoverage:
    """[L24] Condition 3.2: for every j ∈ [M1] and each label ±1, the number of tasks in T_tr that map μ_j
    to that label is |T_tr|/M1 (≥ 1)."""
    member = tasks.membership(M1)
    positive, negative = member.sum(dim=1), member.sum(dim=0)  # (a, b) maps μ_a → +1, μ_b → −1
    count = tasks.count
    holds = (positive * M1 == count).all() & (negative * M1 == count).all() & (count >= M1)
    return TaskCoverage(positive, negative, count, holds)


# Prompts ------------------------------------------------------------------------------------
@dataclass
class PromptDraw:
    """What every column of n prompts carries (the query is the last of l + 1 columns)."""

    task: torch.Tensor  # (n, 2): the decisive patterns (a, b)
    relevant: torch.Tensor  # (n, l + 1) long: index of the column's relevant pattern (IDR or ODR)
    irrelevant: torch.Tensor  # (n, l + 1) long: index of its irrelevant pattern
    kappa: torch.Tensor  # (n, l + 1): the irrelevant pattern's coefficient κ
    label: torch.Tensor  # (n, l + 1): ±1; the last column is the query's label z

    @property
    def z(self) -> torch.Tensor:
        return self.label[..., -1]

    @property
    def context_label(self) -> torch.Tensor:
        return self.label[..., :-1]

    @property
    def same_as_query(self) -> torch.Tensor:
        """(n, l) bool: demonstrations sharing the query's relevant pattern (the set N of [L24] Cor. 4.3)."""
        return self.relevant[..., :-1] == self.relevant[..., -1:]


def split_uniform(u: torch.Tensor, count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One uniform u on (0, 1) as two independent ones: an index floor(u·count), uniform on [count], and
    the remainder u·count − index, uniform on [0, 1). Saves hashing a second random number."""
    scaled = u * count
    index = torch.clamp(scaled.long(), max=count - 1)
    return index, (scaled - index).clamp(0.0, 1.0)


def context_patterns(
    u: torch.Tensor, a: torch.Tensor, b: torch.Tensor, fraction: torch.Tensor, M: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Relevant-pattern indices of demonstrations: μ_a and μ_b with probability α/2 each, every other
    pattern with (1 − α)/(M − 2) ([L24] §3.2; α' and M1' at test, §5). Also returns a fair coin per
    demonstration (±1), the label of those on non-decisive patterns.

    u: (n, l) uniforms, one per demonstration; a, b: (n,); fraction: 0-d. Below α, u picks μ_a or
    μ_b; above, (u − α)/(1 − α) is again uniform and picks the other pattern and the coin."""
    if M < 3:
        raise ValueError(f"drawing non-decisive demonstrations needs at least 3 relevant patterns, got {M}")
    alpha = fraction
    a, b = a[..., None], b[..., None]
    rest = ((u - alpha) / (1 - alpha).clamp(min=1e-12)).clamp(0.0, 1.0)
    other, remainder = split_uniform(rest, M - 2)
    # the other-th of the M − 2 non-decisive patterns: skip the two decisive indices in increasing order
    other = other + (other >= torch.minimum(a, b)).long()
    other = other + (other >= torch.maximum(a, b)).long()
    pattern = torch.where(u < alpha / 2, a, torch.where(u < alpha, b, other))
    return pattern, torch.where(remainder < 0.5, 1.0, -1.0)


def sample_prompt_draw(
    rng: Stream,
    purpose: str,
    step,
    *,
    tasks: TaskSet,
    prompts: int,
    length: int,
    fraction: torch.Tensor,
    relevant_count: int,
    irrelevant_count: int,
    kappa_range: torch.Tensor | float,
) -> PromptDraw:
    """Draw n = `prompts` prompts of `length` demonstrations ([L24] §3.2, §5).

    The task is uniform over the set (Alg. 1's "each IDR pattern is sampled equally likely in each
    batch" then holds in expectation; batches are not stratified). The query's label z is a fair coin and its
    relevant pattern is the task's decisive pattern for z (our reading, the paper is
    silent: otherwise its label would be a coin flip).
    Demonstrations follow `context_patterns`; decisive ones get the task's label, the others a fair coin
    (Def. 3.1). Every column's irrelevant index is uniform over [M2] and κ ~ U(−K, K) (Eq. 6; K' at test, Eq. 8)."""
    n, l = prompts, length
    task = tasks.sample(rng.uniform(purpose + "/task", step, (n,)))
    a, b = task[..., 0], task[..., 1]
    z = torch.where(rng.uniform(purpose + "/query_label", step, (n,)) < 0.5, 1.0, -1.0)
    query = torch.where(z > 0, a, b)
    contexts, coin = context_patterns(rng.uniform(purpose + "/contexts", step, (n, l)), a, b, fraction, relevant_count)
    context_label = torch.where(contexts == a[..., None], 1.0, torch.where(contexts == b[..., None], -1.0, coin))
    irrelevant, kappa_u = split_uniform(rng.uniform(purpose + "/irrelevant", step, (n, l + 1)), irrelevant_count)
    kappa = kappa_range * (2 * kappa_u - 1)  # κ ~ U(−K, K)
    return PromptDraw(
        task=task,
        relevant=torch.cat([contexts, query[..., None]], dim=-1),
        irrelevant=irrelevant,
        kappa=kappa,
        label=torch.cat([context_label, z[..., None]], dim=-1),
    )


def features(
    draw: PromptDraw,
    relevant_units: torch.Tensor,
    irrelevant_units: torch.Tensor,
    beta: torch.Tensor,
    lam: torch.Tensor | None = None,
) -> torch.Tensor:
    """x = μ_j + κ·ν_k with μ_j = β·u_j, ν_k = β·v_k ([L24] Eq. 6; Eq. 8 with ODR/ODI patterns): (n, l + 1, d_X).
    With `lam` (n, l + 1), the relevant pattern's coefficient λ: x = λ·μ_j + κ·ν_k (seed 001's Eq. 3 before
    its noise).

    Both rows come from one lookup (`embedding`: a row lookup, many times faster on CPU than advanced
    indexing) in the table [u_1 … u_M1; v_1 … v_M2]: compiled, x is then written straight into the prompt,
    where two lookups left an intermediate of the prompts' size (a training step on these prompts, on the CPU: 30%
    less time)."""
    units = torch.cat([relevant_units, irrelevant_units], dim=-2)
    rows = torch.stack([draw.relevant, draw.irrelevant + relevant_units.shape[-2]], dim=-1)
    picked = torch.nn.functional.embedding(rows, units)  # (n, l + 1, 2, d_X): u_j, v_k
    relevant, irrelevant = picked[..., 0, :], picked[..., 1, :]
    if lam is not None:
        relevant = lam[..., None] * relevant
    x = relevant + draw.kappa[..., None] * irrelevant
    return beta * x


def embed(x: torch.Tensor, context_label: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """P = [x_1 … x_l x_query; y_1 … y_l 0], y_i = Embd(f(x_i)) = ±q ([L24] Eq. 1).

    Tokens are rows here (the paper's Pᵀ): x (n, l + 1, d_X), context_label (n, l), q (d_Y,) →
    (n, l + 1, d_X + d_Y)."""
    label = torch.cat([context_label, context_label.new_zeros(*context_label.shape[:-1], 1)], dim=-1)
    y = label[..., None] * q  # the query's label slot is 0; padded before the product, so compiled code
    return torch.cat([x, y], dim=-1)  # writes y straight into P instead of through two copies


@dataclass
class Prompts:
    """Embedded prompts with what they were drawn from (for probes that need each column's pattern)."""

    draw: PromptDraw
    tokens: torch.Tensor  # (n, l + 1, d_X + d_Y): rows p_1 … p_l, p_query

    @property
    def z(self) -> torch.Tensor:
        return self.draw.z


# Pytrees: vmap can take and return task sets and prompts for a whole pack.
for _cls in (TaskSet, PromptDraw, Prompts):
    register_dataclass(_cls)


def sample_prompts(
    rng: Stream,
    purpose: str,
    step,
    *,
    tasks: TaskSet,
    prompts: int,
    length: int,
    fraction: torch.Tensor,
    relevant_units: torch.Tensor,
    irrelevant_units: torch.Tensor,
    beta: torch.Tensor,
    kappa_range: torch.Tensor | float,
    q: torch.Tensor,
) -> Prompts:
    """`sample_prompt_draw`, `features` and `embed` in one call."""
    draw = sample_prompt_draw(
        rng,
        purpose,
        step,
        tasks=tasks,
        prompts=prompts,
        length=length,
        fraction=fraction,
        relevant_count=relevant_units.shape[-2],
        irrelevant_count=irrelevant_units.shape[-2],
        kappa_range=kappa_range,
    )
    x = features(draw, relevant_units, irrelevant_units, beta)
    return Prompts(draw, embed(x, draw.context_label, q))


# Out-of-domain patterns -----------------------------------------------------------------------
OOD_RELEVANT = 3  # M1' ([L24] §5)
FIRST_PATTERN_SHARED = 0.3  # μ'_1 = 0.3·(μ_1 − μ_2) + a·μ_5 + b·μ_6 ([L24] §5)
S1_BUDGET = 1.0 - 2 * FIRST_PATTERN_SHARED**2  # a² + b² = 0.82 keeps ‖μ'_1‖ = β
S1_MAX = math.sqrt(2 * S1_BUDGET)  # ≈ 1.2806: the largest a + b with a² + b² = 0.82


@dataclass(frozen=True)
class OODSplit:
    """The coefficients a, b of μ'_1 for a coefficient sum S1, and whether the norm constraint was met."""

    S1: float
    a: float
    b: float
    feasible: bool  # a² + b² + 2·0.3² = 1 (‖μ'_1‖ = β)

    @property
    def relative_norm(self) -> float:
        """‖μ'_1‖/β."""
        return math.sqrt(2 * FIRST_PATTERN_SHARED**2 + self.a**2 + self.b**2)


def ood_split(S1: float, mode: str = "solve") -> OODSplit:
    """a and b with a + b = S1 ([L24] §5.1: S1 = a + b, a² + b² + 2·0.3² = 1).

    "solve": a² + b² = 0.82 so ‖μ'_1‖ = β, a = (S1 + √(1.64 − S1²))/2 the larger root; when |S1| > √1.64
    (e.g. Fig. 3A's S1 = 1.3) no such a, b exist and it falls back to a = b = S1/2 without renormalising
    (our reading; `feasible` is then False). "equal": a = b = S1/2 (Fig. 2's a = b = 0.64 at S1 = 1.28)."""
    if mode not in ("solve", "equal"):
        raise ValueError(f"unknown split mode {mode!r}; expected solve or equal")
    if mode == "solve" and S1 * S1 <= 2 * S1_BUDGET:
        root = math.sqrt(2 * S1_BUDGET - S1 * S1)
        return OODSplit(S1, (S1 + root) / 2, (S1 - root) / 2, True)
    a = S1 / 2
    return OODSplit(S1, a, a, abs(2 * FIRST_PATTERN_SHARED**2 + 2 * a * a - 1.0) < 1e-9)


def ood_coefficients(split: OODSplit, M1: int) -> torch.Tensor:
    """k_{j,i} of μ'_j = Σ_i k_{j,i} μ_i for the M1' = 3 ODR patterns of [L24] §5: (3, M1), float64.

    μ'_1 = 0.3(μ_1 − μ_2) + aμ_5 + bμ_6 (the OCR's "aμ_? + bμ_?" read as μ_5, μ_6: the only unused IDR
    patterns, and the only reading with μ'_1 ⟂ μ'_3 for every S1), μ'_2 = (√2/2)(μ_1 + μ_2),
    μ'_3 = (√2/2)(μ_3 + μ_4). Coefficient sums S1 = a + b, S2 = S3 = √2 ([L24] Eq. 12)."""
    if M1 < 6:
        raise ValueError(f"the out-of-domain patterns of [L24] §5 combine μ_1..μ_6 and need M1 ≥ 6, got {M1}")
    c = torch.zeros(OOD_RELEVANT, M1, dtype=torch.float64)
    c[0, 0], c[0, 1], c[0, 4], c[0, 5] = FIRST_PATTERN_SHARED, -FIRST_PATTERN_SHARED, split.a, split.b
    c[1, 0] = c[1, 1] = c[2, 2] = c[2, 3] = math.sqrt(2) / 2
    return c


def ood_relevant_units(split: OODSplit, relevant_units: torch.Tensor) -> torch.Tensor:
    """μ'_j/β = Σ_i k_{j,i} μ_i/β: (3, d_X). The ODI patterns are the IDI ones, ν'_i = ν_i ([L24] §5)."""
    coefficients = ood_coefficients(split, relevant_units.shape[-2]).to(relevant_units)
    return coefficients @ relevant_units
