"""What every page shares: navigation, the base template's context and the status socket."""
