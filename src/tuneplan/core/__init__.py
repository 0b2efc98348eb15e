"""The estimation core: pydantic models and pure maths. No Qt, no NVML, no file I/O."""
