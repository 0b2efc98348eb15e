"""Local GPU detection through NVML: ``probe`` imports pynvml lazily; no Qt here."""
