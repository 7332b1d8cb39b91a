"""homeworlds.hints"""
