"""Stand-ins for the few scikit-learn pieces mmnc uses, so that the package imports without it.

They follow scikit-learn's conventions (get_params/set_params from the
signature of __init__, fit_predict, fit_transform, NotFittedError before fit)
but are not scikit-learn: with it installed they are not used.
"""
import inspect

import numpy as np
import scipy.sparse as sp


class NotFittedError(ValueError, AttributeError):
    """The estimator is used before fit."""


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped at its iteration cap before converging."""


class BaseEstimator:
    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        valid = self._get_param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"Invalid parameter {key!r} for estimator {type(self).__name__}")
            setattr(self, key, value)
        return self

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_params().items())})"


class ClusterMixin:
    _estimator_type = "clusterer"

    def fit_predict(self, X, y=None):
        self.fit(X)
        return self.labels_


class TransformerMixin:
    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)


def check_is_fitted(estimator, attributes=None):
    names = [attributes] if isinstance(attributes, str) else attributes
    fitted = all(hasattr(estimator, a) for a in names) if names else any(
        k.endswith("_") and not k.startswith("__") for k in vars(estimator))
    if not fitted:
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' first.")


def check_non_negative(X, whom):
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size and data.min() < 0:
        raise ValueError(f"Negative values in data passed to {whom}")
