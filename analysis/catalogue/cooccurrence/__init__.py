"""The laws of seed 003, [Y24]: Yang, Kailkhura, Wang, Liang, "Training Dynamics of Transformers to Recognize Word
Co-occurrence via Gradient Flow Analysis", NeurIPS 2024 (arXiv 2410.09605). Spec: shared/specs/seed-003.md §5.5
(C1–C21) and §6 (Figure 1). The claims with the laws that test them (CLAIMS), those without a law yet
(UNCOVERED), and the Figure 1 report section."""

from analysis.catalogue.cooccurrence import figure1_laws, initial_rates, phase1, phase2
from analysis.catalogue.cooccurrence.common import STUDY
from analysis.catalogue.cooccurrence.figure1_section import figure1_section
from analysis.law import Claim

S = f"{STUDY}."


def _fractions(*claims: str) -> tuple[str, ...]:
    """The Phase-2 fraction laws of the given claims (named <study>.<claim>_<metric>)."""
    return tuple(law.name for law in phase2.FRACTION_LAWS if law.name.split(".")[1].split("_")[0] in claims)


CLAIMS = (
    Claim("C1", "Def. E.2, Thm E.26, Thm 3.1", "Phase 1 lasts T1 ∝ 1/(σ1² m m1)",
          (S + "T1_vs_m", S + "T1_vs_c1", S + "T1_vs_c0")),
    Claim("C2", "Lemma 4.1, E.4", "initial rate dG(μ1)/dt = Θ((σ0²+σ1²) m m1)", (S + "initial_G1_rate_vs_m",)),
    Claim("C3", "Lemma 4.2", "initial |dG3/dt| / dG1/dt small, slope −1/2 in m", (S + "initial_G3_rate_ratio_vs_m",)),
    Claim("C4", "Lemma E.6", "random-token rate ≈ 3/n of the signal's at t = 0",
          (S + "initial_random_token_rate_ratio",)),
    Claim("C5", "Lemmas 4.2–4.3; Fig. 1b", "the one-target-token losses rise, then fall before T1",
          (S + "one_target_losses_peak_before_T1",)),
    Claim("C7", "Thm E.28; Fig. 1a", "attention is still in Phase 1", (S + "phase1_attention_still",)),
    Claim("C8", "Thm F.8", "Phase 2: 1/L̂ linear in t, slope κ = Θ(σ1² m m1); L̂ ∝ 1/(t − T1)",
          (S + "kappa_vs_m", S + "local_loss_exponent")),
    Claim("C10", "Eq. 5, Lemma F.10", "‖Wᵀa‖² grows little in Phase 2", (S + "readout_growth_vs_m",)),
    Claim("C11", "Thm 3.2(i), Lemma 4.7; Fig. 1a", "target-pair scores rise, common-token scores fall",
          _fractions("C11")),
    Claim("C12", "Thm 3.3, Eq. 3", "final score change C12 = Θ(σ0²√m/(L σ1² m m1) + …)",
          (S + "C12_vs_m", S + "C12_vs_c1", S + "C12_vs_c0")),
    Claim("C14", "Thm 3.2(ii), Cor. F.13", "⟨v1,v2⟩ rises, ⟨v1,v3⟩ and ⟨v2,v3⟩ fall", _fractions("C14")),
    Claim("C16", "Lemmas 4.4–4.5, Def. F.1, App. F.1", "automatic balancing of the gradient sums S_k",
          _fractions("C16", "L45")),
    Claim("C18", "Thm 3.2(iv)", "margins G1+G2+G3 > 0, G1+G3 < 0, G2+G3 < 0", _fractions("C18")),
    Claim("C20", "Thm 3.3, App. F.10", "the test loss is small too (≤ 1/poly(m))", (S + "test_loss_vs_m",)),
    Claim("C21", "Lemma E.19", "type-4 samples are correct early, at t = Θ(F(0)/m)", (S + "type4_correct_vs_m",)),
    Claim("GF", "§2.2, App. A", "gradient descent at η follows the gradient flow (T1 in t = η·step η-free)",
          (S + "T1_vs_lr",)),
)  # fmt: skip

UNCOVERED = (  # claims of the paper with no law yet: measured at every record, no verdict (README)
    Claim("C6", "Thm 3.1", "at T1 the loss is Θ(1), G1, G2, −G3 = Θ(1)", ()),
    Claim("C9", "Thm 3.3", "time to loss ε ≈ T1 + 1/(κε)", ()),
    Claim("C13", "Thm 3.3", "random-token score changes ≈ C12/n", ()),
    Claim("C15", "Def. F.1, Cor. F.17", "softmax stays within O(1/L²) of uniform", ()),
    Claim("C17", "Thm F.8, Cor. F.2", "every sample's loss falls at one rate", ()),
    Claim("C19", "Lemma F.14", "the random-token sub-network stays small", ()),
)  # fmt: skip

LAWS = (*phase1.LAWS, *figure1_laws.LAWS, *initial_rates.LAWS, *phase2.LAWS)
SECTIONS = (figure1_section,)  # Figure 1 of its own (analysis.report calls it)
