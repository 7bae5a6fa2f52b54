"""The grad-mode flags, per thread, in C (Note [Grad mode in C])."""

class GradState:
    enabled: bool
    inference: bool
    anomaly: bool
    anomaly_check_nan: bool
