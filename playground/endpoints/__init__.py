"""Provider endpoints: the Providers page, base-URL policy, encrypted keys, connection tests and model lists."""
