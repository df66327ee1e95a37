"""The demo data a fresh install starts with: simulated endpoints, example tools and the local demo account."""
