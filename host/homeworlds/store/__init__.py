"""homeworlds.store"""
