"""A worked example of a paper from outside iclscale: SGD on a scalar linear regression.

Setting: inputs x ~ N(0, 1), labels y = a·x + σ·ε with ε ~ N(0, 1), a model ŷ = w·x started at w = 0 and
trained by SGD with a constant step η on batches of B fresh examples, loss ½(w·x − y)². The population
loss is E(w·x − y)² = (w − a)² + σ², so (w − a)² is the excess risk over the noise floor σ².

The claim (a textbook computation, written out in laws.py): once the start is forgotten (T ≫ 1/η), the
iterate fluctuates around a with E(w − a)² = ησ² / (B(2 − η(1 + 2/B))): the excess risk is proportional
to σ², exponent 2.

The package is a distribution with an entry point in the group `iclscale.papers` (pyproject.toml), whose
value is this `PAPER`; its parts are named by module so that listing papers imports neither torch nor the
laws.
"""

from pathlib import Path

from iclscale.paper import Paper

PAPER = Paper(
    name="scalar_sgd",
    citation="Scalar SGD (iclscale's worked example) [SGD]",
    tag="SGD",
    studies=("scalar_sgd",),
    declarations="scalar_sgd.declaration",
    laws="scalar_sgd.laws",
    sweeps=Path(__file__).parent / "sweeps",
)
