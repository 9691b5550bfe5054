"""Client targets: the code people run to consume a provider's stream, certified over HTTP."""
