"""Teams and roles: who may see and change what, the Team page, and each new user's personal team."""
