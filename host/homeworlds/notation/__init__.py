"""homeworlds.notation"""
