"""The runtime probe: runs a model under real torch in a child process and turns static findings into
evidence (confirmed / not reproduced / not exercised). Imports torch lazily: static mode never does."""
