"""homeworlds.sim"""
