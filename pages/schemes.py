import streamlit as st
st.title("Comparing position schemes")
